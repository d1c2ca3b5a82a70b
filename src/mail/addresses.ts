import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';

// One inbound address per account: a random local part (not guessable from the account id, so
// strangers cannot post documents into an account) at INBOUND_EMAIL_DOMAIN.

export async function inboundAddress(db: Kysely<DB>, accountId: string, domain: string): Promise<string> {
  await db
    .insertInto('inbound_addresses')
    .values({ account_id: accountId, local_part: `docs-${randomBytes(6).toString('hex')}` })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  const r = await db
    .selectFrom('inbound_addresses')
    .select('local_part')
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return `${r.local_part}@${domain}`;
}

/** The account an address belongs to, or null (another domain, or no such local part). */
export async function accountOfAddress(
  db: Kysely<DB>,
  address: string,
  domain: string,
): Promise<string | null> {
  const m = /^([^@]+)@(.+)$/.exec(address.trim().toLowerCase());
  if (!m || m[2] !== domain) return null;
  // Sub-addressing (docs-x+anything@) reaches the same account.
  const local = m[1]!.split('+')[0]!;
  const r = await db
    .selectFrom('inbound_addresses')
    .select('account_id')
    .where('local_part', '=', local)
    .executeTakeFirst();
  return r?.account_id ?? null;
}
