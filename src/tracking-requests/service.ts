import type { Kysely } from 'kysely';
import { checkInitialCustomFields } from '../custom-fields/initial.ts';
import type { DB } from '../db/schema.ts';
import { ApiError, notFound } from '../errors.ts';
import type { Resource } from '../jsonapi/resource.ts';
import { customerOf } from '../parties/service.ts';
import { allShippingLines } from '../reference/data.ts';
import { type Inference, inferNumber } from '../reference/infer.ts';
import { shipmentIncludes } from '../shipments/include.ts';
import { cleanEntries, rejectBlankEntries } from '../shipments/string-lists.ts';
import { parseTimeSort, type TimeSort } from '../shipments/time-sort.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import {
  type batchedTrackingRequestInsert,
  DuplicateTrackingRequest,
  findTrackingRequest,
  listTrackingRequests,
  type TrackingRequest,
  type TrackingRequestFilter,
  updateTrackingRequest,
} from './queries.ts';
import { validateCreate } from './validate.ts';

// Tracking request use cases: plain functions over (db, account, validated input) that return
// rows or throw catalogue errors. Routes (routes.ts) translate HTTP to these calls and serialize;
// the CLI, console or MCP server can call the same functions.

export type TrackingRequestInsert = ReturnType<typeof batchedTrackingRequestInsert>;

/** Creates a tracking request; a pending or tracking one for the same number and line is a 422. */
export async function createTrackingRequest(
  db: Kysely<DB>,
  insert: TrackingRequestInsert,
  accountId: string,
  attributes: Parameters<typeof validateCreate>[0] & { initial_custom_fields?: unknown },
  relationships?: Parameters<typeof customerOf>[2],
): Promise<TrackingRequest> {
  const input = validateCreate(attributes);
  const customer_id = await customerOf(db, accountId, relationships);
  const initial_custom_fields = await checkInitialCustomFields(
    db,
    accountId,
    attributes.initial_custom_fields as Parameters<typeof checkInitialCustomFields>[2],
  );
  try {
    return await insert(accountId, { ...input, customer_id, initial_custom_fields });
  } catch (err) {
    if (err instanceof DuplicateTrackingRequest) {
      throw new ApiError(422, [
        {
          source: { pointer: '/data/attributes/request_number' },
          title: 'Unprocessable Entity',
          detail: `A tracking request for ${input.request_number} at ${input.scac} is already pending or tracking.`,
          code: 'duplicate',
        },
      ]);
    }
    throw err;
  }
}

export { SORTS } from '../shipments/time-sort.ts';

export type TrackingRequestSort = TimeSort;

/** `sort=` of the list (see time-sort.ts). */
export const trackingRequestSort: (raw: string | undefined) => TrackingRequestSort = parseTimeSort;

export interface ListInput extends TrackingRequestFilter {
  sort: TrackingRequestSort;
  includeTrackedObject: boolean;
}

/** One page of the account's tracking requests, with their shipments when asked to include them. */
export async function listTrackingRequestsOf(
  db: Kysely<DB>,
  accountId: string,
  input: ListInput,
  page: Page,
): Promise<{ rows: TrackingRequest[]; total: number; included: Resource[] }> {
  const { rows, total } = await listTrackingRequests(
    db,
    accountId,
    {
      status: input.status,
      scac: input.scac?.trim().toUpperCase(),
      request_number: input.request_number?.replace(/\s+/g, '').toUpperCase(),
      q: input.q?.trim() || undefined,
      created_start: input.created_start,
      created_end: input.created_end,
      updated_start: input.updated_start,
      updated_end: input.updated_end,
      sort: input.sort,
    },
    page,
  );
  const included = input.includeTrackedObject
    ? await shipmentIncludes(
        db,
        accountId,
        rows.map((r) => r.shipment_id),
      )
    : [];
  return { rows, total, included };
}

/** One of the account's tracking requests (404 otherwise), with its shipment when asked. */
export async function getTrackingRequest(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  includeTrackedObject: boolean,
): Promise<{ row: TrackingRequest; included: Resource[] }> {
  const row = await findTrackingRequest(db, accountId, id);
  if (!row) throw notFound('No tracking request with this id.');
  const included = includeTrackedObject ? await shipmentIncludes(db, accountId, [row.shipment_id]) : [];
  return { row, included };
}

export interface EditInput {
  ref_numbers?: string[];
  ref_number?: string;
  tags?: string[];
  shipment_tags?: string[];
}

/** Replaces ref numbers and tags (blank entries are a 422; entries are trimmed and deduplicated). */
export async function editTrackingRequest(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  a: EditInput,
): Promise<TrackingRequest> {
  const refs = a.ref_numbers ?? (a.ref_number !== undefined ? [a.ref_number] : undefined);
  const tags = a.tags ?? a.shipment_tags;
  rejectBlankEntries([
    ['ref_numbers', refs],
    ['tags', tags],
  ]);
  const row = isUuid(id)
    ? await updateTrackingRequest(db, accountId, id, {
        ref_numbers: cleanEntries(refs),
        shipment_tags: cleanEntries(tags),
      })
    : undefined;
  if (!row) throw notFound('No tracking request with this id.');
  return row;
}

/**
 * Number type and shipping line of a tracking number (no storage). `pointer` names the member the
 * number came from, for the 422 when it cannot be read.
 */
export function inferTrackingNumber(raw: string | undefined, pointer: string): Inference {
  if (raw === undefined) {
    throw new ApiError(422, [
      { source: { pointer: '/number' }, detail: 'number is required.', code: 'blank' },
    ]);
  }
  const outcome = inferNumber(raw, allShippingLines());
  if (!outcome.ok)
    throw new ApiError(422, [{ source: { pointer }, detail: outcome.detail, code: outcome.code }]);
  return outcome.value;
}
