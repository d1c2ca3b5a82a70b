import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { byId, byIds } from '../db/by-ids.ts';
import { afterRow, paged, total } from '../db/paged.ts';
import type { DB, TrackingRequestsTable } from '../db/schema.ts';
import { type ReadsOf, readsOf } from '../members/kit.ts';
import type { Page } from '../util/page.ts';
import { TRACKING_REQUEST } from './members.ts';
import type { CreateInput } from './validate.ts';

/** A tracking request as the API reads it: the fields its declared members read (members.ts). */
export type TrackingRequest = Pick<
  Selectable<TrackingRequestsTable>,
  ReadsOf<typeof TRACKING_REQUEST> | 'id'
>;

// The select list, made of the declaration (typed as one column for kysely; rows are cast).
const COLUMNS = readsOf(TRACKING_REQUEST) as unknown as ['id'];

/** The partial unique index refused the row: the same number is already pending or tracked. */
export class DuplicateTrackingRequest extends Error {}

/**
 * Inserts tracking requests several to a statement: what arrives while the event loop turns is
 * written by one INSERT, so concurrent creates share a round trip, a plan and a commit (the
 * durable commit is what costs most per request). Each caller still gets its own row, or its own
 * DuplicateTrackingRequest: `on conflict do nothing` skips a row the partial unique index refuses,
 * including the second of two equal requests in one batch. Nobody is answered before the batch
 * has committed. When the statement fails, its rows are retried one by one (see flush).
 */
export function batchedTrackingRequestInsert(
  db: Kysely<DB>,
  maxBatch = 200,
): (accountId: string, input: CreateInput) => Promise<TrackingRequest> {
  interface Pending {
    row: { id: string; account_id: string } & CreateInput;
    resolve(tr: TrackingRequest): void;
    reject(err: unknown): void;
  }
  let queue: Pending[] = [];
  let scheduled = false;
  const insert = (rows: Pending[]) =>
    sql<TrackingRequest>`
        insert into tracking_requests
          (id, account_id, request_number, request_type, scac, ref_numbers, shipment_tags, next_attempt_at,
           customer_id, initial_custom_fields)
        select x.id, x.account_id, x.request_number, x.request_type, x.scac,
               array(select jsonb_array_elements_text(x.ref_numbers)),
               array(select jsonb_array_elements_text(x.shipment_tags)),
               now(), x.customer_id, x.initial_custom_fields
          from jsonb_to_recordset(${JSON.stringify(rows.map((p) => p.row))}::jsonb)
               as x(id uuid, account_id uuid, request_number text, request_type text, scac text,
                    ref_numbers jsonb, shipment_tags jsonb, customer_id uuid, initial_custom_fields jsonb)
        on conflict do nothing
        returning ${sql.join(COLUMNS.map((c) => sql.ref(c)))}`.execute(db);
  const settle = (rows: Pending[], inserted: TrackingRequest[]) => {
    const byId = new Map(inserted.map((row) => [row.id, row]));
    for (const p of rows) {
      const row = byId.get(p.row.id);
      if (row) p.resolve(row);
      else p.reject(new DuplicateTrackingRequest());
    }
  };
  const flush = async () => {
    scheduled = false;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(maxBatch);
    if (queue.length > 0) schedule();
    try {
      settle(batch, (await insert(batch)).rows);
    } catch (err) {
      if (batch.length === 1) {
        batch[0]!.reject(err);
        return;
      }
      // The batch mixes accounts: a row the database refuses (input validation should have
      // caught it; a concurrently deleted account would not be) must fail only its own request.
      // Each row is retried alone and gets its own result or error.
      await Promise.all(
        batch.map(async (p) => {
          try {
            settle([p], (await insert([p])).rows);
          } catch (e) {
            p.reject(e);
          }
        }),
      );
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => void flush());
  };
  return (accountId, input) =>
    new Promise<TrackingRequest>((resolve, reject) => {
      queue.push({ row: { id: randomUUID(), account_id: accountId, ...input }, resolve, reject });
      schedule();
    });
}

/** The account's tracking requests with their columns, to narrow with `where`. */
function accountRequests(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('tracking_requests')
    .select(COLUMNS)
    .$castTo<TrackingRequest>()
    .where('account_id', '=', accountId);
}

export const findTrackingRequest = byId<TrackingRequest>((db, accountId, id) =>
  accountRequests(db, accountId).where('id', '=', id).executeTakeFirst(),
);

export interface TrackingRequestFilter {
  status?: string;
  scac?: string;
  request_number?: string;
  q?: string;
  created_start?: Date;
  created_end?: Date;
  updated_start?: Date;
  updated_end?: Date;
  sort: { column: 'created_at' | 'updated_at'; desc: boolean };
}

export async function listTrackingRequests(
  db: Kysely<DB>,
  accountId: string,
  f: TrackingRequestFilter,
  page: Page,
): Promise<{ rows: TrackingRequest[]; total: number }> {
  let q = db.selectFrom('tracking_requests').where('account_id', '=', accountId);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.scac) q = q.where('scac', '=', f.scac);
  if (f.request_number) q = q.where('request_number', '=', f.request_number);
  if (f.created_start) q = q.where('created_at', '>=', f.created_start);
  if (f.created_end) q = q.where('created_at', '<=', f.created_end);
  if (f.updated_start) q = q.where('updated_at', '>=', f.updated_start);
  if (f.updated_end) q = q.where('updated_at', '<=', f.updated_end);
  if (f.q) {
    const term = f.q;
    const like = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    q = q.where((eb) =>
      eb.or([eb('request_number', 'ilike', like), sql<boolean>`${term} = any(ref_numbers)`]),
    );
  }
  const dir = f.sort.desc ? 'desc' : 'asc';
  return paged(
    (page.after ? q.where(afterRow('tracking_requests', null, f.sort.column, f.sort.desc, page.after)) : q)
      .select(COLUMNS)
      .$castTo<TrackingRequest>()
      .orderBy(f.sort.column, dir)
      .orderBy('id', dir),
    q.select(total),
    page,
  );
}

export async function updateTrackingRequest(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  patch: { ref_numbers?: string[]; shipment_tags?: string[] },
): Promise<TrackingRequest | undefined> {
  if (patch.ref_numbers === undefined && patch.shipment_tags === undefined)
    return findTrackingRequest(db, accountId, id);
  return db
    .updateTable('tracking_requests')
    .set({ ...patch, updated_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning(COLUMNS)
    .$castTo<TrackingRequest>()
    .executeTakeFirst();
}

/** Several of an account's tracking requests (others' ids are skipped), e.g. for includes. */
export const trackingRequestsByIds = byIds<TrackingRequest>((db, accountId, ids) =>
  accountRequests(db, accountId).where('id', 'in', ids).execute(),
);
