import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ApiError, invalidAttribute, notFound } from '../errors.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import { definitionsBySlugs, optionsOf } from './definition-queries.ts';
import {
  type Definition,
  ENTITY_OF,
  type FieldValue,
  type Option,
  RESOURCE_TYPE,
  type ResourceType,
} from './types.ts';
import { checkValue, displayValue } from './value-check.ts';
import {
  deleteValue,
  entityExists,
  findValue,
  findValueBySlug,
  insertValue,
  listValues,
  setValue,
  type ValueFilter,
} from './value-queries.ts';

// Custom field values: one per (definition, entity), its JSON type kept, checked against the
// definition. Reached flat (/custom_fields) or under the entity (/{entities}/{id}/custom_fields).

export type ShownValue = FieldValue & { display_value: string | null };

const VALUE_POINTER = '/data/attributes/value';

async function shown(db: Kysely<DB>, accountId: string, rows: FieldValue[]): Promise<ShownValue[]> {
  const options = await optionsOf(
    db,
    accountId,
    rows.map((r) => r.definition_id),
  );
  return rows.map((r) => ({
    ...r,
    display_value: displayValue(
      r.data_type,
      r.value,
      options.filter((o) => o.definition_id === r.definition_id),
    ),
  }));
}

async function one(db: Kysely<DB>, accountId: string, row: FieldValue | undefined): Promise<ShownValue> {
  if (!row) throw notFound('No custom field with this id.');
  return (await shown(db, accountId, [row]))[0]!;
}

/** Throws the precise 422 when `value` does not fit `def`. */
export function assertValue(def: Definition, value: unknown, options: Option[], pointer = VALUE_POINTER) {
  const problem = checkValue(def, value, options);
  if (problem) throw invalidAttribute(pointer, `${def.api_slug} ${problem}.`, 'invalid_value');
}

async function definitionBySlug(db: Kysely<DB>, accountId: string, slug: string, pointer: string) {
  const [def] = await definitionsBySlugs(db, accountId, [slug]);
  if (!def)
    throw invalidAttribute(
      pointer,
      `No custom field definition with api_slug '${slug}'.`,
      'unknown_reference',
    );
  return def;
}

export async function pageOfValues(db: Kysely<DB>, accountId: string, f: ValueFilter, page: Page) {
  const { rows, total } = await listValues(db, accountId, f, page);
  return { rows: await shown(db, accountId, rows), total };
}

export async function getValue(db: Kysely<DB>, accountId: string, id: string) {
  return one(db, accountId, isUuid(id) ? await findValue(db, accountId, id) : undefined);
}

export async function createValue(
  db: Kysely<DB>,
  accountId: string,
  input: { api_slug: string; value: unknown; entity: { type: ResourceType; id: string } },
): Promise<ShownValue> {
  const def = await definitionBySlug(db, accountId, input.api_slug, '/data/attributes/api_slug');
  const entityPointer = '/data/relationships/entity/data';
  if (RESOURCE_TYPE[def.entity_type] !== input.entity.type) {
    throw invalidAttribute(
      entityPointer,
      `${def.api_slug} is a ${def.entity_type} field; the entity is a ${input.entity.type}.`,
      'invalid_entity',
    );
  }
  if (!isUuid(input.entity.id) || !(await entityExists(db, accountId, input.entity.type, input.entity.id))) {
    throw invalidAttribute(
      entityPointer,
      `No ${input.entity.type} with id '${input.entity.id}'.`,
      'unknown_reference',
    );
  }
  assertValue(def, input.value, await optionsOf(db, accountId, [def.id]));
  const id = await insertValue(db, accountId, {
    definition_id: def.id,
    entity_type: input.entity.type,
    entity_id: input.entity.id,
    value: input.value,
  });
  if (!id) {
    throw new ApiError(422, [
      {
        source: { pointer: '/data/attributes/api_slug' },
        detail: `This ${input.entity.type} already has a value for ${def.api_slug}; edit it instead.`,
        code: 'taken',
      },
    ]);
  }
  return one(db, accountId, await findValue(db, accountId, id));
}

async function editRow(db: Kysely<DB>, accountId: string, row: FieldValue, value: unknown) {
  const [def] = await definitionsBySlugs(db, accountId, [row.api_slug]);
  assertValue(def!, value, await optionsOf(db, accountId, [row.definition_id]));
  await setValue(db, accountId, row.id, value);
  return one(db, accountId, await findValue(db, accountId, row.id));
}

export async function editValue(db: Kysely<DB>, accountId: string, id: string, value: unknown) {
  const row = isUuid(id) ? await findValue(db, accountId, id) : undefined;
  if (!row) throw notFound('No custom field with this id.');
  return editRow(db, accountId, row, value);
}

export async function removeValue(db: Kysely<DB>, accountId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await deleteValue(db, accountId, id))) throw notFound('No custom field with this id.');
}

// ---- nested under an entity ------------------------------------------------------------------

async function entityOr404(db: Kysely<DB>, accountId: string, type: ResourceType, id: string) {
  if (!isUuid(id) || !(await entityExists(db, accountId, type, id))) {
    throw notFound(`No ${type} with this id.`);
  }
}

export async function valuesOfEntity(
  db: Kysely<DB>,
  accountId: string,
  type: ResourceType,
  id: string,
  page: Page,
) {
  await entityOr404(db, accountId, type, id);
  return pageOfValues(db, accountId, { entity_type: type, entity_id: id }, page);
}

export async function createValueOfEntity(
  db: Kysely<DB>,
  accountId: string,
  type: ResourceType,
  id: string,
  input: { api_slug: string; value: unknown },
) {
  await entityOr404(db, accountId, type, id);
  return createValue(db, accountId, { ...input, entity: { type, id } });
}

async function valueBySlugOr404(
  db: Kysely<DB>,
  accountId: string,
  type: ResourceType,
  id: string,
  slug: string,
) {
  await entityOr404(db, accountId, type, id);
  const row = await findValueBySlug(db, accountId, id, slug);
  if (!row || row.entity_type !== type) {
    throw notFound(`This ${type} has no custom field '${slug}' (${ENTITY_OF[type]}).`);
  }
  return row;
}

export async function editValueOfEntity(
  db: Kysely<DB>,
  accountId: string,
  type: ResourceType,
  id: string,
  slug: string,
  value: unknown,
) {
  return editRow(db, accountId, await valueBySlugOr404(db, accountId, type, id, slug), value);
}

export async function removeValueOfEntity(
  db: Kysely<DB>,
  accountId: string,
  type: ResourceType,
  id: string,
  slug: string,
) {
  const row = await valueBySlugOr404(db, accountId, type, id, slug);
  await deleteValue(db, accountId, row.id);
}
