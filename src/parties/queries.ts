import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { paged, total } from '../db/paged.ts';
import type { DB } from '../db/schema.ts';
import type { Page } from '../util/page.ts';

export interface Party {
  id: string;
  company_name: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'company_name', 'created_at', 'updated_at'] as const;

/** PostgreSQL's unique_violation: the account already has a party of that name. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '23505';
}

export async function insertParty(db: Kysely<DB>, accountId: string, companyName: string): Promise<Party> {
  return db
    .insertInto('parties')
    .values({ id: randomUUID(), account_id: accountId, company_name: companyName })
    .returning(COLUMNS)
    .executeTakeFirstOrThrow();
}

export async function findParty(db: Kysely<DB>, accountId: string, id: string): Promise<Party | undefined> {
  return db
    .selectFrom('parties')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function listParties(
  db: Kysely<DB>,
  accountId: string,
  page: Page,
): Promise<{ rows: Party[]; total: number }> {
  const q = db.selectFrom('parties').where('account_id', '=', accountId);
  return paged(q.select(COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc'), q.select(total), page);
}

/** Renames a party and the customer_name of its shipments, in one transaction. */
export async function renameParty(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  companyName: string,
): Promise<Party | undefined> {
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .updateTable('parties')
      .set({ company_name: companyName, updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
    if (!row) return undefined;
    await tx
      .updateTable('shipments')
      .set({ customer_name: companyName, updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('customer_id', '=', id)
      .execute();
    return row;
  });
}
