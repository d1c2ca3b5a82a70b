import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

// Work is claimed with FOR UPDATE SKIP LOCKED and a lease: any number of workers share the
// queue, and a crashed worker's items become due again when their lease expires. The carrier
// call happens after the claim commits, outside any transaction.

export interface ClaimedRequest {
  id: string;
  account_id: string;
  request_number: string;
  request_type: 'bill_of_lading' | 'booking_number' | 'container';
  scac: string;
  retry_count: number | null;
  awaiting_manifest_since: Date | null;
  ref_numbers: string[];
  shipment_tags: string[];
}

export async function claimDueRequests(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedRequest[]> {
  const r = await sql<ClaimedRequest>`
    update tracking_requests t
       set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
     where t.id in (
       select id from tracking_requests
        where next_attempt_at <= now()
          and status in ('pending', 'awaiting_manifest')
          and (lease_expires_at is null or lease_expires_at < now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked)
    returning t.id, t.account_id, t.request_number, t.request_type, t.scac, t.retry_count,
              t.awaiting_manifest_since, t.ref_numbers, t.shipment_tags`.execute(db);
  return r.rows;
}

export interface ClaimedShipment {
  id: string;
  account_id: string;
  scac: string;
  request_type: 'bill_of_lading' | 'booking_number' | 'container';
  normalized_number: string;
  refresh_failures: number;
}

export async function claimDueShipments(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedShipment[]> {
  const r = await sql<ClaimedShipment>`
    update shipments s
       set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
     where s.id in (
       select id from shipments
        where next_refresh_at <= now()
          and line_tracking_stopped_at is null
          and (lease_expires_at is null or lease_expires_at < now())
        order by next_refresh_at
        limit ${limit}
        for update skip locked)
    returning s.id, s.account_id, s.scac, s.request_type, s.normalized_number, s.refresh_failures`.execute(
    db,
  );
  return r.rows;
}

export class LeaseLost extends Error {}

type LeasedTable = 'tracking_requests' | 'shipments' | 'webhook_notifications';

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

/** Oldest due item and counts per kind, for metrics. */
export async function queueStats(
  db: Kysely<DB>,
): Promise<Array<{ kind: string; due: number; leased: number; oldest_due_seconds: number | null }>> {
  const r = await sql<{ kind: string; due: number; leased: number; oldest_due_seconds: number | null }>`
    select 'tracking_request' as kind,
           count(*) filter (where next_attempt_at <= now() and (lease_expires_at is null or lease_expires_at < now()))::int as due,
           count(*) filter (where lease_expires_at >= now())::int as leased,
           extract(epoch from now() - min(next_attempt_at) filter (where next_attempt_at <= now()))::float8 as oldest_due_seconds
      from tracking_requests where status in ('pending', 'awaiting_manifest') and next_attempt_at is not null
    union all
    select 'shipment_refresh',
           count(*) filter (where next_refresh_at <= now() and (lease_expires_at is null or lease_expires_at < now()))::int,
           count(*) filter (where lease_expires_at >= now())::int,
           extract(epoch from now() - min(next_refresh_at) filter (where next_refresh_at <= now()))::float8
      from shipments where line_tracking_stopped_at is null and next_refresh_at is not null`.execute(db);
  return r.rows;
}
