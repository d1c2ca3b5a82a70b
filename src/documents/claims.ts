import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { LeaseLost } from '../worker/leases.ts';

// Document work is claimed like tracking requests and refreshes: rows due by next_process_at,
// leased with FOR UPDATE SKIP LOCKED, so any number of workers share it and a crashed worker's
// documents are taken again when their lease expires.

export type DocumentAction = 'process' | 'reextract' | 'reclassify' | 'relink' | 'rotate';

export interface ClaimedDocument {
  id: string;
  account_id: string;
  pending_action: DocumentAction;
  rotate_degrees: number | null;
  storage_key: string;
  file_content_type: string;
  extracted_text: unknown;
  document_type: string;
  document_type_manual: string | null;
  last_representation_id: string | null;
  attempt_count: number;
  claimed_at: Date;
}

export async function claimDueDocuments(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDocument[]> {
  const r = await sql<ClaimedDocument>`
    update documents d
       set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000}),
           extraction_status = case when d.pending_action = 'relink' then d.extraction_status else 'processing' end
     where d.id in (
       select id from documents
        where next_process_at <= now()
          and (lease_expires_at is null or lease_expires_at < now())
        order by next_process_at
        limit ${limit}
        for update skip locked)
    returning d.id, d.account_id, coalesce(d.pending_action, 'process') as pending_action, d.rotate_degrees,
              d.storage_key, d.file_content_type, d.extracted_text, d.document_type, d.document_type_manual,
              d.last_representation_id, d.attempt_count, now() as claimed_at`.execute(db);
  return r.rows;
}

/** Locks the claimed row in the transaction that applies the result; the lease must still be ours. */
export async function lockDocumentLease(tx: Kysely<DB>, id: string, owner: string): Promise<void> {
  const r = await sql<{ id: string }>`
    select id from documents where id = ${id} and lease_owner = ${owner} for update`.execute(tx);
  if (r.rows.length === 0) throw new LeaseLost(`lease on document ${id} lost`);
}

/** Ends a run: clears the lease, and the queued action unless another was queued meanwhile. */
export function finishSql(claimedAt: Date) {
  return sql`lease_owner = null, lease_expires_at = null, attempt_count = 0,
    pending_action = case when next_process_at > ${claimedAt} then pending_action else null end,
    next_process_at = case when next_process_at > ${claimedAt} then next_process_at else null end,
    updated_at = now()`;
}
