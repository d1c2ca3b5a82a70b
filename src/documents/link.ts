import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { validateCreate } from '../tracking-requests/validate.ts';
import type { Representation } from './extract/represent.ts';

// Linking a document to the account's shipments and containers its numbers name, and
// auto-tracking: a transport document that matches nothing creates the tracking request.

/** Replaces the document's links; answers the linked shipment ids. */
export async function relinkDocument(
  tx: Kysely<DB>,
  accountId: string,
  documentId: string,
  numbers: string[],
): Promise<string[]> {
  await sql`update documents set link_numbers = ${numbers}::text[] where id = ${documentId}`.execute(tx);
  await sql`delete from document_shipments where document_id = ${documentId}`.execute(tx);
  await sql`delete from document_containers where document_id = ${documentId}`.execute(tx);
  if (numbers.length === 0) return [];
  await sql`insert into document_containers (document_id, container_id, account_id)
    select ${documentId}, c.id, c.account_id from containers c
     where c.account_id = ${accountId} and c.number = any(${numbers}::text[])
    on conflict do nothing`.execute(tx);
  const r = await sql<{ shipment_id: string }>`
    insert into document_shipments (document_id, shipment_id, account_id)
    select ${documentId}, s.id, s.account_id from shipments s
     where s.account_id = ${accountId}
       and (s.bill_of_lading_number = any(${numbers}::text[]) or s.normalized_number = any(${numbers}::text[])
            or exists (select 1 from containers c where c.shipment_id = s.id and c.number = any(${numbers}::text[])))
    on conflict do nothing
    returning shipment_id`.execute(tx);
  return r.rows.map((x) => x.shipment_id);
}

/**
 * Creates the tracking request for an unmatched transport document (B/L, else booking, and a
 * known carrier). An active request for the same number is reused, so a document read twice
 * still makes exactly one. Answers the request's id, or null when there is nothing to track.
 */
export async function autoTrack(
  tx: Kysely<DB>,
  accountId: string,
  documentId: string,
  trackable: Representation['trackable'],
): Promise<{ id: string; created: boolean } | null> {
  if (!trackable) return null;
  let input: ReturnType<typeof validateCreate>;
  try {
    input = validateCreate({
      request_type: trackable.type,
      request_number: trackable.number,
      scac: trackable.scac,
    });
  } catch {
    return null; // an unknown line or a number this line cannot track: nothing to do
  }
  const inserted = await sql<{ id: string }>`
    insert into tracking_requests (id, account_id, request_number, request_type, scac, ref_numbers, shipment_tags, next_attempt_at)
    values (gen_random_uuid(), ${accountId}, ${input.request_number}, ${input.request_type}, ${input.scac}, '{}', '{}', now())
    on conflict do nothing
    returning id`.execute(tx);
  let id = inserted.rows[0]?.id;
  const created = id !== undefined;
  if (!id) {
    const existing = await sql<{ id: string }>`select id from tracking_requests
      where account_id = ${accountId} and scac = ${input.scac} and request_number = ${input.request_number}
        and status in ('pending', 'awaiting_manifest', 'created') limit 1`.execute(tx);
    id = existing.rows[0]?.id;
  }
  if (!id) return null;
  await sql`update documents set tracking_request_id = ${id} where id = ${documentId}`.execute(tx);
  return { id, created };
}
