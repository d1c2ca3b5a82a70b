import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { resumeStoppedContainers } from '../engine/container-tracking.ts';
import { resumeShipmentTracking, stopShipmentTracking } from '../engine/line-tracking.ts';
import { notFound } from '../errors.ts';
import type { Resource } from '../jsonapi/resource.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import { shipmentsBody } from './bodies.ts';
import {
  findShipment,
  listShipments,
  type ShipmentFilter,
  type ShipmentRow,
  updateShipment,
} from './queries.ts';
import { cleanEntries, rejectBlankEntries } from './string-lists.ts';
import { parseTimeSort } from './time-sort.ts';

// Shipment use cases: plain functions over (db, account, validated input) that return documents or
// rows, or throw catalogue errors. Routes (routes.ts) only translate HTTP to these calls.

export { SORTS } from './time-sort.ts';

export type ShipmentSort = ShipmentFilter['sort'];

/** `sort=` of the list (see time-sort.ts). */
export const shipmentSort: (raw: string | undefined) => ShipmentSort = parseTimeSort;

export interface ShipmentBody {
  data: Resource[];
  included?: Resource[];
}

/** One page of the account's shipments as a JSON:API document (without links). */
export async function listShipmentsOf(
  db: Kysely<DB>,
  accountId: string,
  input: {
    q?: string;
    number?: string;
    trackingStopped?: 'true' | 'false';
    updated_start?: Date;
    updated_end?: Date;
    sort: ShipmentSort;
    /** Conditions on `s` built by other modules (customer, custom field values). */
    where?: ShipmentFilter['where'];
  },
  page: Page,
  include: Set<string>,
): Promise<ShipmentBody & { total: number }> {
  const stopped = input.trackingStopped;
  const { rows, total } = await listShipments(
    db,
    accountId,
    {
      q: input.q?.trim() || undefined,
      number: input.number?.trim() || undefined,
      tracking_stopped: stopped === undefined ? undefined : stopped === 'true',
      updated_start: input.updated_start,
      updated_end: input.updated_end,
      sort: input.sort,
      where: input.where,
    },
    page,
  );
  return { ...(await shipmentsBody(db, accountId, rows, include)), total };
}

/** The 404 of a shipment id that is not the account's. */
export const shipmentNotFound = () => notFound('No shipment with this id.');
const notFoundError = shipmentNotFound;

function idOr404(id: string): string {
  if (!isUuid(id)) throw notFoundError();
  return id;
}

async function single(db: Kysely<DB>, accountId: string, row: ShipmentRow, include: Set<string> = new Set()) {
  const doc = await shipmentsBody(db, accountId, [row], include);
  return { ...doc, data: doc.data[0]! };
}

/** One of the account's shipments (404 otherwise) with the includes asked for. */
export async function getShipment(db: Kysely<DB>, accountId: string, id: string, include: Set<string>) {
  const row = await findShipment(db, accountId, idOr404(id));
  if (!row) throw notFoundError();
  return single(db, accountId, row, include);
}

/** Replaces ref numbers and tags (blank entries are a 422; entries are trimmed and deduplicated). */
export async function editShipment(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  a: { ref_numbers?: string[]; tags?: string[] },
) {
  rejectBlankEntries([
    ['ref_numbers', a.ref_numbers],
    ['tags', a.tags],
  ]);
  const row = await updateShipment(db, accountId, idOr404(id), {
    ref_numbers: cleanEntries(a.ref_numbers),
    tags: cleanEntries(a.tags),
  });
  if (!row) throw notFoundError();
  return single(db, accountId, row);
}

/** Who to wake after a change: the webhook worker (new domain events) or the refresher. */
export type NotifyWork = (kind: 'refresh' | 'webhook') => void;

/**
 * Stops tracking at the user's request (idempotent). Wakes the webhook worker when tracking
 * requests moved to tracking_stopped (their domain events were written in the same transaction).
 */
export async function stopTracking(db: Kysely<DB>, accountId: string, id: string, notifyWork?: NotifyWork) {
  const shipmentId = idOr404(id);
  const change = await db
    .transaction()
    .execute((tx) => stopShipmentTracking(tx, accountId, shipmentId, 'cancelled_by_user'));
  if (!change) throw notFoundError();
  if (change.trackingRequestIds.length) notifyWork?.('webhook');
  const row = await findShipment(db, accountId, shipmentId);
  if (!row) throw notFoundError();
  return single(db, accountId, row);
}

/**
 * Resumes tracking; wakes the refresher when the shipment was stopped. A shipment stopped because
 * all its containers were (container-tracking.ts) resumes them too, each with its container.updated.
 */
export async function resumeTracking(db: Kysely<DB>, accountId: string, id: string, notifyWork?: NotifyWork) {
  const shipmentId = idOr404(id);
  const { change, containers } = await db.transaction().execute(async (tx) => {
    const containers = await resumeStoppedContainers(tx, accountId, shipmentId);
    return { change: await resumeShipmentTracking(tx, accountId, shipmentId), containers };
  });
  if (!change) throw notFoundError();
  if (containers) notifyWork?.('webhook');
  if (change.changed) notifyWork?.('refresh');
  const row = await findShipment(db, accountId, shipmentId);
  if (!row) throw notFoundError();
  return single(db, accountId, row);
}
