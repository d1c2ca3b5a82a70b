import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

// One inbound address per account: a random local part (not guessable from the account id, so
// strangers cannot post documents into an account) at INBOUND_EMAIL_DOMAIN.

export async function inboundAddress(db: Kysely<DB>, accountId: string, domain: string): Promise<string> {
  await sql`insert into inbound_addresses (account_id, local_part)
    values (${accountId}, ${`docs-${randomBytes(6).toString('hex')}`})
    on conflict (account_id) do nothing`.execute(db);
  const r = await sql<{
    local_part: string;
  }>`select local_part from inbound_addresses where account_id = ${accountId}`.execute(db);
  return `${r.rows[0]!.local_part}@${domain}`;
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
  const r = await sql<{
    account_id: string;
  }>`select account_id from inbound_addresses where local_part = ${local}`.execute(db);
  return r.rows[0]?.account_id ?? null;
}
