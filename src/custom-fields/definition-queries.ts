import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { paged, total } from '../db/paged.ts';
import type { DB } from '../db/schema.ts';
import type { Page } from '../util/page.ts';
import { deleteOwned } from './owned.ts';
import type { Definition, Option } from './types.ts';

// SQL of definitions and options. jsonb columns are written as JSON text and read as values.

const DEF_COLUMNS = [
  'id',
  'entity_type',
  'api_slug',
  'display_name',
  'description',
  'data_type',
  'reference_type',
  'validation',
  'default_format',
  'default_value',
  'created_at',
  'updated_at',
] as const;
const OPTION_COLUMNS = [
  'id',
  'definition_id',
  'label',
  'value',
  'position',
  'created_at',
  'updated_at',
] as const;

const asDef = (r: unknown) => r as Definition;
const json = (v: unknown) => (v === undefined ? undefined : JSON.stringify(v ?? null));

export type DefinitionInsert = Omit<Definition, 'id' | 'created_at' | 'updated_at'>;
export type DefinitionPatch = Partial<
  Pick<Definition, 'display_name' | 'description' | 'validation' | 'default_format' | 'default_value'>
>;

export async function insertDefinition(db: Kysely<DB>, accountId: string, d: DefinitionInsert) {
  const row = await db
    .insertInto('custom_field_definitions')
    .values({
      ...d,
      id: randomUUID(),
      account_id: accountId,
      validation: json(d.validation),
      default_value: json(d.default_value),
    })
    .returning(DEF_COLUMNS)
    .executeTakeFirstOrThrow();
  return asDef(row);
}

export async function findDefinition(db: Kysely<DB>, accountId: string, id: string) {
  const row = await db
    .selectFrom('custom_field_definitions')
    .select(DEF_COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && asDef(row);
}

export async function definitionsBySlugs(db: Kysely<DB>, accountId: string, slugs: string[]) {
  if (slugs.length === 0) return [];
  const rows = await db
    .selectFrom('custom_field_definitions')
    .select(DEF_COLUMNS)
    .where('account_id', '=', accountId)
    .where('api_slug', 'in', [...new Set(slugs)])
    .execute();
  return rows.map(asDef);
}

export interface DefinitionFilter {
  entity_type?: string;
  data_type?: string;
  display_name?: string;
}

export async function listDefinitions(db: Kysely<DB>, accountId: string, f: DefinitionFilter, page: Page) {
  let q = db.selectFrom('custom_field_definitions').where('account_id', '=', accountId);
  if (f.entity_type) q = q.where('entity_type', '=', f.entity_type);
  if (f.data_type) q = q.where('data_type', '=', f.data_type);
  if (f.display_name) {
    const prefix = f.display_name.replace(/[\\%_]/g, (c) => `\\${c}`);
    q = q.where(sql<boolean>`lower(display_name) like lower(${`${prefix}%`})`);
  }
  const { rows, total: n } = await paged(
    q.select(DEF_COLUMNS).orderBy('created_at').orderBy('id'),
    q.select(total),
    page,
  );
  return { rows: rows.map(asDef), total: n };
}

export async function updateDefinition(db: Kysely<DB>, accountId: string, id: string, p: DefinitionPatch) {
  const row = await db
    .updateTable('custom_field_definitions')
    .set({
      ...p,
      validation: json(p.validation),
      default_value: json(p.default_value),
      updated_at: sql<Date>`now()`,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(DEF_COLUMNS)
    .executeTakeFirst();
  return row && asDef(row);
}

/** Deletes a definition with its options and values (foreign keys cascade). */
export async function deleteDefinition(db: Kysely<DB>, accountId: string, id: string): Promise<boolean> {
  return deleteOwned(db, 'custom_field_definitions', accountId, id);
}

// ---- options ---------------------------------------------------------------------------------

export async function optionsOf(
  db: Kysely<DB>,
  accountId: string,
  definitionIds: string[],
): Promise<Option[]> {
  if (definitionIds.length === 0) return [];
  return db
    .selectFrom('custom_field_options')
    .select(OPTION_COLUMNS)
    .where('account_id', '=', accountId)
    .where('definition_id', 'in', [...new Set(definitionIds)])
    .orderBy(sql`position asc nulls last`)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function insertOption(
  db: Kysely<DB>,
  accountId: string,
  o: { definition_id: string; label: string; value: string; position: number | null },
): Promise<Option> {
  return db
    .insertInto('custom_field_options')
    .values({ ...o, id: randomUUID(), account_id: accountId })
    .returning(OPTION_COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function updateOption(
  db: Kysely<DB>,
  accountId: string,
  definitionId: string,
  id: string,
  p: { label?: string; position?: number | null },
): Promise<Option | undefined> {
  return db
    .updateTable('custom_field_options')
    .set({ ...p, updated_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('definition_id', '=', definitionId)
    .where('id', '=', id)
    .returning(OPTION_COLUMNS)
    .executeTakeFirst();
}

export async function deleteOption(db: Kysely<DB>, accountId: string, definitionId: string, id: string) {
  const r = await db
    .deleteFrom('custom_field_options')
    .where('account_id', '=', accountId)
    .where('definition_id', '=', definitionId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Whether any value of the definition uses the option value (enum: equal; enum_multi: contains). */
export async function optionInUse(db: Kysely<DB>, definitionId: string, value: string): Promise<boolean> {
  const row = await db
    .selectFrom('custom_field_values')
    .select('id')
    .where('definition_id', '=', definitionId)
    .where(sql<boolean>`(value = to_jsonb(${value}::text) or value @> jsonb_build_array(${value}::text))`)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
