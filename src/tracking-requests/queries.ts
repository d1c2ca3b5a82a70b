import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { paged, total } from '../db/paged.ts';
import type { DB } from '../db/schema.ts';
import type { Page } from '../http/jsonapi.ts';
import type { CreateInput } from './validate.ts';

export interface TrackingRequest {
  id: string;
  request_number: string;
  request_type: string;
  scac: string;
  ref_numbers: string[];
  shipment_tags: string[];
  status: string;
  failed_reason: string | null;
  is_retrying: boolean;
  retry_count: number | null;
  shipment_id: string | null;
  created_at: Date;
  updated_at: Date;
  next_attempt_at: Date | null;
}

const COLUMNS = [
  'id',
  'request_number',
  'request_type',
  'scac',
  'ref_numbers',
  'shipment_tags',
  'status',
  'failed_reason',
  'is_retrying',
  'retry_count',
  'shipment_id',
  'created_at',
  'updated_at',
  'next_attempt_at',
] as const;

export class DuplicateTrackingRequest extends Error {}

/** Inserts a pending request, due for the engine at once. The partial unique index enforces the duplicate rule. */
export async function insertTrackingRequest(
  db: Kysely<DB>,
  accountId: string,
  input: CreateInput,
): Promise<TrackingRequest> {
  try {
    return await db
      .insertInto('tracking_requests')
      .values({
        id: randomUUID(),
        account_id: accountId,
        request_number: input.request_number,
        request_type: input.request_type,
        scac: input.scac,
        ref_numbers: input.ref_numbers,
        shipment_tags: input.shipment_tags,
        next_attempt_at: sql<Date>`now()`,
      })
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new DuplicateTrackingRequest();
    throw err;
  }
}

export async function findTrackingRequest(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<TrackingRequest | undefined> {
  return db
    .selectFrom('tracking_requests')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

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
  return paged(q.select(COLUMNS).orderBy(f.sort.column, dir).orderBy('id', dir), q.select(total), page);
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
    .executeTakeFirst();
}

/** Several of an account's tracking requests (others' ids are skipped), e.g. for includes. */
export async function trackingRequestsByIds(
  db: Kysely<DB>,
  accountId: string,
  ids: string[],
): Promise<TrackingRequest[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('tracking_requests')
    .select(COLUMNS)
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
}
