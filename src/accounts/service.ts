import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { generateKey, keyMatches, keyPrefix } from './keys.ts';

export interface Account {
  id: string;
  name: string;
  created_at: Date;
}

export interface ApiKeyInfo {
  id: string;
  account_id: string;
  prefix: string;
  name: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export async function createAccount(
  db: Kysely<DB>,
  name: string,
): Promise<{ account: Account; apiKey: string; keyId: string }> {
  return db.transaction().execute(async (tx) => {
    const account = await tx
      .insertInto('accounts')
      .values({ id: randomUUID(), name })
      .returning(['id', 'name', 'created_at'])
      .executeTakeFirstOrThrow();
    const { key, id } = await insertKey(tx, account.id, 'default');
    return { account, apiKey: key, keyId: id };
  });
}

async function insertKey(
  db: Kysely<DB>,
  accountId: string,
  name: string | null,
): Promise<{ id: string; key: string }> {
  const k = generateKey();
  await db
    .insertInto('api_keys')
    .values({ id: k.id, account_id: accountId, prefix: k.prefix, secret_hash: k.hash, name })
    .execute();
  return { id: k.id, key: k.key };
}

export async function findAccount(db: Kysely<DB>, id: string): Promise<Account | undefined> {
  return db
    .selectFrom('accounts')
    .select(['id', 'name', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * Creates the default account when there is none. Processes starting together on an empty
 * database serialise on an advisory lock, so exactly one of them creates it (and prints the key).
 */
export async function ensureDefaultAccount(
  db: Kysely<DB>,
): Promise<{ account: Account; apiKey: string } | null> {
  return db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(726355)`.execute(tx);
    if ((await countAccounts(tx)) > 0) return null;
    const account = await tx
      .insertInto('accounts')
      .values({ id: randomUUID(), name: 'default' })
      .returning(['id', 'name', 'created_at'])
      .executeTakeFirstOrThrow();
    const { key } = await insertKey(tx, account.id, 'default');
    return { account, apiKey: key };
  });
}

/** Every account, oldest first, with how many of its keys are not revoked. */
export async function listAccounts(db: Kysely<DB>): Promise<Array<Account & { live_keys: number }>> {
  const rows = await db
    .selectFrom('accounts as a')
    .leftJoin('api_keys as k', (join) =>
      join.onRef('k.account_id', '=', 'a.id').on('k.revoked_at', 'is', null),
    )
    .select(['a.id', 'a.name', 'a.created_at', (eb) => eb.fn.count<string>('k.id').as('live_keys')])
    .groupBy(['a.id', 'a.name', 'a.created_at'])
    .orderBy('a.created_at')
    .orderBy('a.id')
    .execute();
  return rows.map((r) => ({ ...r, live_keys: Number(r.live_keys) }));
}

export async function countAccounts(db: Kysely<DB>): Promise<number> {
  const r = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function createApiKey(
  db: Kysely<DB>,
  accountId: string,
  name: string | null = null,
): Promise<{ id: string; key: string } | undefined> {
  if (!(await findAccount(db, accountId))) return undefined;
  return insertKey(db, accountId, name);
}

export async function listApiKeys(db: Kysely<DB>, accountId: string): Promise<ApiKeyInfo[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'prefix', 'name', 'created_at', 'last_used_at', 'revoked_at'])
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes a key; false when no such key. Revoking twice keeps the first revocation time. */
export async function revokeApiKey(db: Kysely<DB>, keyId: string): Promise<boolean> {
  const r = await db
    .updateTable('api_keys')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.fn<Date>('now')) }))
    .where('id', '=', keyId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

export type AuthResult =
  | { ok: true; accountId: string; keyId: string }
  | { ok: false; reason: 'malformed' | 'unknown' | 'revoked' };

// last_used_at is informational: write it at most once a minute per key per process.
const lastTouched = new Map<string, number>();

async function touchKey(db: Kysely<DB>, keyId: string): Promise<void> {
  const now = Date.now();
  if ((lastTouched.get(keyId) ?? 0) >= now - 60_000) return;
  lastTouched.set(keyId, now);
  await db
    .updateTable('api_keys')
    .set({ last_used_at: new Date(now) })
    .where('id', '=', keyId)
    .execute();
}

export async function authenticate(db: Kysely<DB>, key: string): Promise<AuthResult> {
  const prefix = keyPrefix(key);
  if (!prefix) return { ok: false, reason: 'malformed' };
  const row = await db
    .selectFrom('api_keys')
    .select(['id', 'account_id', 'secret_hash', 'revoked_at'])
    .where('prefix', '=', prefix)
    .executeTakeFirst();
  if (!row || !keyMatches(key, row.secret_hash)) return { ok: false, reason: 'unknown' };
  if (row.revoked_at) return { ok: false, reason: 'revoked' };
  await touchKey(db, row.id);
  return { ok: true, accountId: row.account_id, keyId: row.id };
}

/**
 * Checks the key and reserves requests from the account's rate-limit bucket in one round trip
 * (the hash is compared in the database, after the prefix look-up): at least this request, up to
 * `maxBatch` for later ones (see rate_limit_reserve in migrations/0008). Only a key that does not
 * pass goes through `authenticate` to learn why. `left` is what the window has left after the
 * grant, or minus the seconds to wait when nothing was granted.
 */
export async function authenticateAndCharge(
  db: Kysely<DB>,
  key: string,
  bucket: string,
  limit: number,
  windowSeconds: number,
  maxBatch = 1,
): Promise<(AuthResult & { ok: true; granted: number; left: number }) | (AuthResult & { ok: false })> {
  const prefix = keyPrefix(key);
  if (!prefix) return { ok: false, reason: 'malformed' };
  const r = await sql<{ id: string; account_id: string; r: number[] }>`
    select k.id, k.account_id,
           rate_limit_reserve(k.account_id, ${bucket}, ${limit}::integer, ${windowSeconds}::integer, ${maxBatch}::integer) as r
      from api_keys k
     where k.prefix = ${prefix} and k.revoked_at is null and k.secret_hash = sha256(convert_to(${key}, 'UTF8'))`.execute(
    db,
  );
  const row = r.rows[0];
  if (!row) {
    const slow = await authenticate(db, key);
    return slow.ok ? { ok: false, reason: 'unknown' } : slow;
  }
  await touchKey(db, row.id);
  return {
    ok: true,
    accountId: row.account_id,
    keyId: row.id,
    granted: Number(row.r[0]),
    left: Number(row.r[1]),
  };
}
