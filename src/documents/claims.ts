import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { hot } from '../db/statement-names.ts';
import { type LeasedTable, leaseTo, UNLEASED } from '../worker/leases.ts';

// Document work is a queue of the worker's (worker/leases.ts, worker/queues.ts): rows due by
// next_process_at, leased with FOR UPDATE SKIP LOCKED, so any number of workers share it, one
// worker works a document at a time, and a crashed worker's documents are taken again when their
// lease expires.

export const DOCUMENTS: LeasedTable = 'documents';

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
  const r = await sql<ClaimedDocument>`${hot('claim_due_documents')}
    update documents d
       set ${leaseTo(owner, leaseMs)},
           extraction_status = case when d.pending_action = 'relink' then d.extraction_status else 'processing' end
     where d.id in (
       select id from documents
        where next_process_at <= now()
          and ${UNLEASED}
        order by next_process_at
        limit ${limit}
        for update skip locked)
    returning d.id, d.account_id, coalesce(d.pending_action, 'process') as pending_action, d.rotate_degrees,
              d.storage_key, d.file_content_type, d.extracted_text, d.document_type, d.document_type_manual,
              d.last_representation_id, d.attempt_count, now() as claimed_at`.execute(db);
  return r.rows;
}

/** Ends a run: clears the lease, and the queued action unless another was queued meanwhile. */
export function finishSql(claimedAt: Date) {
  return sql`lease_owner = null, lease_expires_at = null, attempt_count = 0,
    pending_action = case when next_process_at > ${claimedAt} then pending_action else null end,
    next_process_at = case when next_process_at > ${claimedAt} then next_process_at else null end,
    updated_at = now()`;
}
