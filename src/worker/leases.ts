import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

// Work items are rows with a due time and a lease (lease_owner, lease_expires_at). A worker claims
// due rows with FOR UPDATE SKIP LOCKED, so any number of workers share a queue without waiting on
// each other, and a crashed worker's items become due again when their lease expires. The work
// itself (a carrier call, a webhook POST) happens after the claim commits, outside any transaction;
// its result is written under lockLease, so a worker whose lease was taken over writes nothing.

/** Tables that are work queues: those with lease columns. */
export type LeasedTable = {
  [K in keyof DB]: 'lease_owner' extends keyof DB[K]
    ? 'lease_expires_at' extends keyof DB[K]
      ? K
      : never
    : never;
}[keyof DB];

/** The lease of an item was lost (expired and taken over): its result must not be written. */
export class LeaseLost extends Error {}

/** `set` assignments of a claim: the row is `owner`'s for `leaseMs`. */
export function leaseTo(owner: string, leaseMs: number): RawBuilder<unknown> {
  return sql`lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})`;
}

/** A claim's condition: no live lease on the row (never leased, or the lease ran out). */
export const UNLEASED: RawBuilder<boolean> = sql<boolean>`(lease_expires_at is null or lease_expires_at < now())`;

/**
 * Locks a claimed row inside the transaction that applies its result and checks the lease is
 * still ours: a worker whose lease expired (and was taken over) must not write.
 */
export async function lockLease(
  tx: Kysely<DB>,
  table: LeasedTable,
  id: string,
  owner: string,
): Promise<void> {
  const row = await sql<{ id: string }>`
    select id from ${sql.table(table)} where id = ${id} and lease_owner = ${owner} for update`.execute(tx);
  if (row.rows.length === 0) throw new LeaseLost(`lease on ${table} ${id} lost`);
}

/** Gives claimed items back unworked (still ours only), so the next claim, here or elsewhere, takes them at once. */
export async function releaseLeases(
  db: Kysely<DB>,
  table: LeasedTable,
  ids: string[],
  owner: string,
): Promise<void> {
  if (ids.length === 0) return;
  await sql`
    update ${sql.table(table)} set lease_owner = null, lease_expires_at = null
     where id = any(${ids}::uuid[]) and lease_owner = ${owner}`.execute(db);
}
