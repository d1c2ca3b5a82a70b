import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { invalidAttribute, notFound } from '../errors.ts';
import type { Resource } from '../jsonapi/resource.ts';
import { isUniqueViolation } from '../parties/queries.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import {
  type DefinitionFilter,
  type DefinitionInsert,
  type DefinitionPatch,
  deleteDefinition,
  deleteOption,
  findDefinition,
  insertDefinition,
  insertOption,
  listDefinitions,
  optionInUse,
  optionsOf,
  updateDefinition,
  updateOption,
} from './definition-queries.ts';
import { serializeDefinition } from './serializer.ts';
import type { Definition, Option } from './types.ts';
import { checkValue } from './value-check.ts';

// Definitions and their options: plain functions (db, account, validated input).

const P = '/data/attributes';
const SLUG_RE = /^[a-z][a-z0-9_]{0,62}$/;
const OPTION_TYPES = new Set(['enum', 'enum_multi']);

function requireText(name: string, raw: string | undefined): string {
  const v = (raw ?? '').trim();
  if (v === '') throw invalidAttribute(`${P}/${name}`, `${name} can't be blank`, 'blank');
  return v;
}

function checkDefault(d: Pick<Definition, 'data_type' | 'validation' | 'default_value'>, options: Option[]) {
  if (d.default_value === undefined || d.default_value === null) return;
  // Enum defaults are checked against the options once there are any.
  if (OPTION_TYPES.has(d.data_type) && options.length === 0) return;
  const problem = checkValue(
    { ...d, validation: { ...d.validation, required: false } },
    d.default_value,
    options,
  );
  if (problem) throw invalidAttribute(`${P}/default_value`, `default_value ${problem}.`, 'invalid_value');
}

export async function createDefinition(
  db: Kysely<DB>,
  accountId: string,
  input: Omit<
    DefinitionInsert,
    'description' | 'reference_type' | 'validation' | 'default_format' | 'default_value'
  > &
    Partial<DefinitionInsert>,
): Promise<Definition> {
  const api_slug = requireText('api_slug', input.api_slug);
  if (!SLUG_RE.test(api_slug)) {
    throw invalidAttribute(
      `${P}/api_slug`,
      'api_slug must start with a lower-case letter and hold only lower-case letters, digits and _ (at most 63).',
      'invalid_format',
    );
  }
  const def: DefinitionInsert = {
    entity_type: input.entity_type,
    api_slug,
    display_name: requireText('display_name', input.display_name),
    description: input.description ?? null,
    data_type: input.data_type,
    reference_type: input.reference_type ?? null,
    validation: input.validation ?? null,
    default_format: input.default_format ?? null,
    default_value: input.default_value ?? null,
  };
  checkDefault(def, []);
  try {
    return await insertDefinition(db, accountId, def);
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw invalidAttribute(`${P}/api_slug`, `api_slug '${api_slug}' has already been taken`, 'taken');
    }
    throw err;
  }
}

export async function getDefinition(db: Kysely<DB>, accountId: string, id: string): Promise<Definition> {
  const def = isUuid(id) ? await findDefinition(db, accountId, id) : undefined;
  if (!def) throw notFound('No custom field definition with this id.');
  return def;
}

/** The definitions as resources, with their options' ids (one query for all of them). */
export async function definitionResources(
  db: Kysely<DB>,
  accountId: string,
  defs: Definition[],
): Promise<Resource[]> {
  const options = await optionsOf(
    db,
    accountId,
    defs.map((d) => d.id),
  );
  return defs.map((d) =>
    serializeDefinition(d, {
      accountId,
      optionIds: options.filter((o) => o.definition_id === d.id).map((o) => o.id),
    }),
  );
}

export function pageOfDefinitions(db: Kysely<DB>, accountId: string, f: DefinitionFilter, page: Page) {
  return listDefinitions(db, accountId, f, page);
}

export async function editDefinition(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  patch: DefinitionPatch,
): Promise<Definition> {
  const current = await getDefinition(db, accountId, id);
  const clean: DefinitionPatch = { ...patch };
  if (patch.display_name !== undefined) clean.display_name = requireText('display_name', patch.display_name);
  checkDefault(
    {
      data_type: current.data_type,
      validation: clean.validation !== undefined ? clean.validation : current.validation,
      default_value: clean.default_value,
    },
    await optionsOf(db, accountId, [id]),
  );
  if (Object.keys(clean).length === 0) return current;
  return (await updateDefinition(db, accountId, id, clean)) ?? current;
}

/** Deletes the definition with its options and values (the reference drops them with it). */
export async function removeDefinition(db: Kysely<DB>, accountId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await deleteDefinition(db, accountId, id))) {
    throw notFound('No custom field definition with this id.');
  }
}

// ---- options ---------------------------------------------------------------------------------

async function optionDefinition(db: Kysely<DB>, accountId: string, definitionId: string) {
  return getDefinition(db, accountId, definitionId);
}

export async function listOptions(db: Kysely<DB>, accountId: string, definitionId: string) {
  await optionDefinition(db, accountId, definitionId);
  return optionsOf(db, accountId, [definitionId]);
}

export async function getOption(db: Kysely<DB>, accountId: string, definitionId: string, id: string) {
  const options = await listOptions(db, accountId, definitionId);
  const o = options.find((x) => x.id === id);
  if (!o) throw notFound('No option with this id in this definition.');
  return o;
}

export async function createOption(
  db: Kysely<DB>,
  accountId: string,
  definitionId: string,
  input: { label?: string; value?: string; position?: number | null },
): Promise<Option> {
  const def = await optionDefinition(db, accountId, definitionId);
  if (!OPTION_TYPES.has(def.data_type)) {
    throw invalidAttribute(
      '/data',
      `Options belong to enum and enum_multi fields; this one is ${def.data_type}.`,
      'invalid_data_type',
    );
  }
  const label = requireText('label', input.label);
  const value = requireText('value', input.value);
  try {
    return await insertOption(db, accountId, {
      definition_id: definitionId,
      label,
      value,
      position: input.position ?? null,
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw invalidAttribute(`${P}/value`, `value '${value}' has already been taken`, 'taken');
    throw err;
  }
}

export async function editOption(
  db: Kysely<DB>,
  accountId: string,
  definitionId: string,
  id: string,
  patch: { label?: string; position?: number | null },
): Promise<Option> {
  const current = await getOption(db, accountId, definitionId, id);
  const clean = { ...patch };
  if (patch.label !== undefined) clean.label = requireText('label', patch.label);
  if (Object.keys(clean).length === 0) return current;
  return (await updateOption(db, accountId, definitionId, id, clean)) ?? current;
}

/** An option still used by a value cannot go: the value would name nothing (a 422). */
export async function removeOption(db: Kysely<DB>, accountId: string, definitionId: string, id: string) {
  const option = await getOption(db, accountId, definitionId, id);
  if (await optionInUse(db, definitionId, option.value)) {
    throw invalidAttribute(
      '/data',
      `Option '${option.value}' is in use by custom field values; change them first.`,
      'in_use',
    );
  }
  await deleteOption(db, accountId, definitionId, id);
}
