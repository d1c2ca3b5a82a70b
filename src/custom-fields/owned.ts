import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

/** The custom field tables whose rows belong to one account by an `account_id` column. */
type Owned = 'custom_field_definitions' | 'custom_field_values';

/** Deletes one row of the account; false when there was none (foreign keys cascade). */
export async function deleteOwned(
  db: Kysely<DB>,
  table: Owned,
  accountId: string,
  id: string,
): Promise<boolean> {
  const r = await db
    .deleteFrom(table)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
