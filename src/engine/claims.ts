import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { hot } from '../db/statement-names.ts';
import { leaseTo, UNLEASED } from '../worker/leases.ts';

// The engine's two queues, claimed with FOR UPDATE SKIP LOCKED and a lease (see worker/leases.ts):
// due tracking-request attempts and due shipment refreshes. The carrier call happens after the
// claim commits, outside any transaction.

export interface ClaimedRequest {
  id: string;
  account_id: string;
  request_number: string;
  request_type: 'bill_of_lading' | 'booking_number' | 'container';
  /** Null until auto_detect_vocc_scac has decided it (detect-scac.ts). */
  scac: string | null;
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
  const r = await sql<ClaimedRequest>`${hot('claim_due_requests')}
    update tracking_requests t
       set ${leaseTo(owner, leaseMs)}
     where t.id in (
       select id from tracking_requests
        where next_attempt_at <= now()
          and status in ('pending', 'awaiting_manifest')
          and ${UNLEASED}
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
  /** The shipment's ref_numbers (container numbers among them go to carriers that want both). */
  ref_numbers: string[];
  /**
   * What an unchanged refresh needs, read by the claim itself so that it costs no query of its
   * own (process.ts refreshUnchanged): the fingerprint of the answer the stored state was built
   * from, the row version the claim wrote (xmin: any later write to the row changes it), and the
   * stored timeline that decides the next refresh time and the time-based stop reasons.
   */
  engine_fingerprint: string | null;
  row_version: string;
  pod_eta_at: Date | null;
  pod_ata_at: Date | null;
  last_changed_at: Date | null;
  /**
   * [pod_full_out_at, final_destination_full_out_at, empty_terminated_at] per container still
   * tracked (a stopped one decides nothing, as in apply.ts), ISO strings.
   */
  container_times: Array<[string | null, string | null, string | null]>;
}

// timestamptz -> the ISO form iso() gives (millisecond precision, Z).
const ISO_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';

export async function claimDueShipments(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedShipment[]> {
  const r = await sql<ClaimedShipment>`${hot('claim_due_shipments')}
    update shipments s
       set ${leaseTo(owner, leaseMs)}
     where s.id in (
       select id from shipments
        where next_refresh_at <= now()
          and line_tracking_stopped_at is null
          and ${UNLEASED}
        order by next_refresh_at
        limit ${limit}
        for update skip locked)
    returning s.id, s.account_id, s.scac, s.request_type, s.normalized_number, s.refresh_failures, s.ref_numbers,
              s.engine_fingerprint, s.xmin::text as row_version, s.pod_eta_at, s.pod_ata_at,
              s.last_changed_at,
              case when s.engine_fingerprint is null then '[]'::json else coalesce(
                (select json_agg(json_build_array(
                          to_char(c.pod_full_out_at at time zone 'UTC', ${ISO_FORMAT}),
                          to_char(c.final_destination_full_out_at at time zone 'UTC', ${ISO_FORMAT}),
                          to_char(c.empty_terminated_at at time zone 'UTC', ${ISO_FORMAT})))
                   from containers c where c.shipment_id = s.id and c.tracking_stopped_at is null),
                '[]'::json) end as container_times`.execute(db);
  return r.rows;
}
