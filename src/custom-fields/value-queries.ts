import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { paged, total } from '../db/paged.ts';
import type { DB } from '../db/schema.ts';
import type { Page } from '../util/page.ts';
import { deleteOwned } from './owned.ts';
import { type FieldValue, type ResourceType, TABLE_OF } from './types.ts';

// SQL of custom field values. Every query is scoped to the account.

/** The columns of a shown value; payload.ts adds the account to these. */
export const VALUE_COLUMNS = [
  'v.id',
  'v.definition_id',
  'd.api_slug',
  'd.data_type',
  'v.entity_type',
  'v.entity_id',
  'v.value',
  'v.created_at',
  'v.updated_at',
] as const;

const asValue = (r: unknown) => r as FieldValue;

function values(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('custom_field_values as v')
    .innerJoin('custom_field_definitions as d', 'd.id', 'v.definition_id')
    .where('v.account_id', '=', accountId);
}

export interface ValueFilter {
  entity_type?: ResourceType;
  entity_id?: string;
  definition_id?: string;
  api_slug?: string;
}

export async function listValues(db: Kysely<DB>, accountId: string, f: ValueFilter, page: Page) {
  let q = values(db, accountId);
  if (f.entity_type) q = q.where('v.entity_type', '=', f.entity_type);
  if (f.entity_id) q = q.where('v.entity_id', '=', f.entity_id);
  if (f.definition_id) q = q.where('v.definition_id', '=', f.definition_id);
  if (f.api_slug) q = q.where('d.api_slug', '=', f.api_slug);
  const r = await paged(
    q.select(VALUE_COLUMNS).orderBy('v.created_at').orderBy('v.id'),
    q.select(total),
    page,
  );
  return { rows: r.rows.map(asValue), total: r.total };
}

export async function findValue(db: Kysely<DB>, accountId: string, id: string) {
  const row = await values(db, accountId).select(VALUE_COLUMNS).where('v.id', '=', id).executeTakeFirst();
  return row && asValue(row);
}

export async function findValueBySlug(db: Kysely<DB>, accountId: string, entityId: string, slug: string) {
  const row = await values(db, accountId)
    .select(VALUE_COLUMNS)
    .where('v.entity_id', '=', entityId)
    .where('d.api_slug', '=', slug)
    .executeTakeFirst();
  return row && asValue(row);
}

/**
 * Inserts a value; answers undefined when the entity already has one for this definition. A value
 * the definition's default gave (migrations/0041) is not the user's: it is replaced, same id.
 */
export async function insertValue(
  db: Kysely<DB>,
  accountId: string,
  v: { definition_id: string; entity_type: ResourceType; entity_id: string; value: unknown },
): Promise<string | undefined> {
  const row = await db
    .insertInto('custom_field_values')
    .values({ ...v, id: randomUUID(), account_id: accountId, value: JSON.stringify(v.value ?? null) })
    .onConflict((oc) =>
      oc
        .columns(['definition_id', 'entity_id'])
        .doUpdateSet({
          value: (eb) => eb.ref('excluded.value'),
          defaulted: false,
          updated_at: sql<Date>`now()`,
        })
        .where('custom_field_values.defaulted', '=', true),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/** Sets a value, creating it when missing (initial_custom_fields, defaults). */
export async function upsertValue(
  db: Kysely<DB>,
  accountId: string,
  v: { definition_id: string; entity_type: ResourceType; entity_id: string; value: unknown },
): Promise<void> {
  await db
    .insertInto('custom_field_values')
    .values({ ...v, id: randomUUID(), account_id: accountId, value: JSON.stringify(v.value ?? null) })
    .onConflict((oc) =>
      oc.columns(['definition_id', 'entity_id']).doUpdateSet({
        value: (eb) => eb.ref('excluded.value'),
        defaulted: false,
        updated_at: sql<Date>`now()`,
      }),
    )
    .execute();
}

export async function setValue(db: Kysely<DB>, accountId: string, id: string, value: unknown) {
  const r = await db
    .updateTable('custom_field_values')
    .set({ value: JSON.stringify(value ?? null), defaulted: false, updated_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export async function deleteValue(db: Kysely<DB>, accountId: string, id: string): Promise<boolean> {
  return deleteOwned(db, 'custom_field_values', accountId, id);
}

/** Whether the account has this entity (a shipment, container or tracking request). */
export async function entityExists(
  db: Kysely<DB>,
  accountId: string,
  type: ResourceType,
  id: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(TABLE_OF[type])
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}
