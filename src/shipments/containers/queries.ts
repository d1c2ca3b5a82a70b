import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SqlBool,
  sql,
} from 'kysely';
import { byId, byIds } from '../../db/by-ids.ts';
import { afterRow, paged, total } from '../../db/paged.ts';
import type { DB, RawEventsTable, TransportEventsTable } from '../../db/schema.ts';
import { type ReadsOf, readsOf } from '../../members/kit.ts';
import type { Page } from '../../util/page.ts';
import { CONTAINER, type ContainerSource } from './members.ts';

// Containers, their transport events and raw carrier events, and the shared vessels they point
// at. Every account-owned query filters by account_id; rows are plain objects.

// Where the fields joined to a container row come from: its shipment and its terminal check.
const JOINED: Record<string, string> = {
  shipment_pod_locode: 's.port_of_discharge_locode',
  shipment_destination_locode: 's.destination_locode',
  shipment_pod_terminal_id: 's.pod_terminal_id',
  shipment_last_attempted_at: 's.line_tracking_last_attempted_at',
  terminal_checked_at: 'tc.checked_at',
};

/** A container as the API reads it: the fields its declared members read (members.ts). */
export type ContainerRow = Pick<ContainerSource, ReadsOf<typeof CONTAINER> | 'id'>;

// The select list, made of the declaration (kysely cannot type a list made at run time: the rows
// are cast to ContainerRow, which is made of the same declaration).
const CONTAINER_COLUMNS = readsOf(CONTAINER).map((f) =>
  JOINED[f] ? `${JOINED[f]} as ${f}` : `c.${f}`,
) as unknown as ['c.id'];

function containersWithShipment(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('containers as c')
    .innerJoin('shipments as s', 's.id', 'c.shipment_id')
    .leftJoin('container_terminal_checks as tc', 'tc.container_id', 'c.id')
    .where('c.account_id', '=', accountId);
}

export const findContainer = byId<ContainerRow>(async (db, accountId, id) => {
  return containersWithShipment(db, accountId)
    .select(CONTAINER_COLUMNS)
    .$castTo<ContainerRow>()
    .where('c.id', '=', id)
    .executeTakeFirst();
});

/** The account's containers whose `column` is one of `ids`, ordered by `order`. */
async function containersWhereIn(
  db: Kysely<DB>,
  accountId: string,
  column: 'c.id' | 'c.shipment_id',
  ids: string[],
  order: Array<'c.shipment_id' | 'c.number'>,
): Promise<ContainerRow[]> {
  if (ids.length === 0) return [];
  let q = containersWithShipment(db, accountId)
    .select(CONTAINER_COLUMNS)
    .$castTo<ContainerRow>()
    .where(column, 'in', [...new Set(ids)]);
  for (const o of order) q = q.orderBy(o);
  return q.execute();
}

export async function containersByIds(
  db: Kysely<DB>,
  accountId: string,
  ids: string[],
): Promise<ContainerRow[]> {
  return containersWhereIn(db, accountId, 'c.id', ids, ['c.number']);
}

/** Containers of the given shipments, by number within each shipment. */
export async function containersByShipmentIds(
  db: Kysely<DB>,
  accountId: string,
  shipmentIds: string[],
): Promise<ContainerRow[]> {
  return containersWhereIn(db, accountId, 'c.shipment_id', shipmentIds, ['c.shipment_id', 'c.number']);
}

/** Container ids per shipment (for the shipment's `containers` relationship). */
export async function containerIdsByShipment(
  db: Kysely<DB>,
  accountId: string,
  shipmentIds: string[],
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (shipmentIds.length === 0) return out;
  const rows = await db
    .selectFrom('containers')
    .select(['id', 'shipment_id'])
    .where('account_id', '=', accountId)
    .where('shipment_id', 'in', [...new Set(shipmentIds)])
    .orderBy('shipment_id')
    .orderBy('number')
    .execute();
  for (const r of rows) {
    const list = out.get(r.shipment_id) ?? [];
    list.push(r.id);
    out.set(r.shipment_id, list);
  }
  return out;
}

export interface ContainerFilter {
  shipment_id?: string;
  number?: string;
  updated_start?: Date;
  updated_end?: Date;
  sort: { column: 'created_at' | 'updated_at'; desc: boolean };
  /** Conditions on `c` built by other modules (custom field values: issue 13). */
  where?: Array<Expression<SqlBool>>;
}

export async function listContainers(
  db: Kysely<DB>,
  accountId: string,
  f: ContainerFilter,
  page: Page,
): Promise<{ rows: ContainerRow[]; total: number }> {
  // The count needs no join; both apply the same filter.
  const where = (eb: ExpressionBuilder<DB & { c: DB['containers'] }, 'c'>) => {
    const and = [];
    if (f.shipment_id) and.push(eb('c.shipment_id', '=', f.shipment_id));
    if (f.number) and.push(eb('c.number', '=', f.number));
    if (f.updated_start) and.push(eb('c.updated_at', '>=', f.updated_start));
    if (f.updated_end) and.push(eb('c.updated_at', '<=', f.updated_end));
    return eb.and([...and, ...(f.where ?? [])]);
  };
  const after = page.after;
  const rowsQ = containersWithShipment(db, accountId)
    .where(where)
    .$if(Boolean(after), (qb) => qb.where(afterRow('containers', 'c', f.sort.column, f.sort.desc, after!)));
  const countQ = db.selectFrom('containers as c').where('c.account_id', '=', accountId).where(where);
  const dir = f.sort.desc ? 'desc' : 'asc';
  return paged(
    rowsQ
      .select(CONTAINER_COLUMNS)
      .$castTo<ContainerRow>()
      .orderBy(`c.${f.sort.column}`, dir)
      .orderBy('c.id', dir),
    countQ.select(total),
    page,
  );
}

/**
 * Sets the shipment's next_refresh_at to now unless tracking has stopped. Does not touch
 * updated_at: nothing about the data changed.
 */
export async function requestRefresh(
  db: Kysely<DB>,
  accountId: string,
  shipmentId: string,
): Promise<'queued' | 'stopped'> {
  const r = await db
    .updateTable('shipments')
    .set({ next_refresh_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('id', '=', shipmentId)
    .where('line_tracking_stopped_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return r ? 'queued' : 'stopped';
}

// ---- transport events ------------------------------------------------------------------------

const EVENT_COLUMNS = [
  'id',
  'shipment_id',
  'container_id',
  'key',
  'event',
  'timestamp',
  'timezone',
  'location_locode',
  'terminal_id',
  'vessel_id',
  'voyage_number',
  'data_source',
  'invalidated_at',
  'created_at',
  'updated_at',
] as const;

/** A transport event as the API reads it: the table's row without the engine's bookkeeping. */
export type TransportEventRow = Pick<Selectable<TransportEventsTable>, (typeof EVENT_COLUMNS)[number]>;

/** A container's history, deterministic: timestamp ascending (nulls last), then semantic key. */
export async function listTransportEvents(
  db: Kysely<DB>,
  accountId: string,
  containerId: string,
  page: Page,
): Promise<{ rows: TransportEventRow[]; total: number }> {
  const q = db
    .selectFrom('transport_events')
    .where('account_id', '=', accountId)
    .where('container_id', '=', containerId);
  return paged(
    q
      .select(EVENT_COLUMNS)
      .orderBy('timestamp', (ob) => ob.asc().nullsLast())
      .orderBy('key'),
    q.select(total),
    page,
  );
}

/** The account's transport events, every column of a TransportEventRow selected. */
export function accountTransportEvents(db: Kysely<DB>, accountId: string) {
  return db.selectFrom('transport_events').select(EVENT_COLUMNS).where('account_id', '=', accountId);
}

export const findTransportEvent = byId<TransportEventRow>(async (db, accountId, id) => {
  return accountTransportEvents(db, accountId).where('id', '=', id).executeTakeFirst();
});

/** Every transport event of the given containers, in history order per container. */
export const transportEventsOfContainers = byIds<TransportEventRow>(async (db, accountId, containerIds) => {
  return accountTransportEvents(db, accountId)
    .where('container_id', 'in', containerIds)
    .orderBy('container_id')
    .orderBy('timestamp', (ob) => ob.asc().nullsLast())
    .orderBy('key')
    .execute();
});

/** What a container resource needs from its events: their ids, and the empty return's zone. */
import type { EventSummary } from './members.ts';

export type { EventSummary };

export async function eventSummaries(
  db: Kysely<DB>,
  accountId: string,
  containerIds: string[],
): Promise<Map<string, EventSummary>> {
  const out = new Map<string, EventSummary>();
  if (containerIds.length === 0) return out;
  const rows = await db
    .selectFrom('transport_events')
    .select(['id', 'container_id', 'event', 'timezone'])
    .where('account_id', '=', accountId)
    .where('container_id', 'in', [...new Set(containerIds)])
    .orderBy('container_id')
    .orderBy('timestamp', (ob) => ob.asc().nullsLast())
    .orderBy('key')
    .execute();
  return summarize(rows);
}

export function summarize(
  rows: Array<{ id: string; container_id: string; event: string; timezone: string | null }>,
): Map<string, EventSummary> {
  const out = new Map<string, EventSummary>();
  for (const r of rows) {
    let s = out.get(r.container_id);
    if (!s) {
      s = { ids: [], empty_in_timezone: null };
      out.set(r.container_id, s);
    }
    s.ids.push(r.id);
    if (r.event === 'container.transport.empty_in') s.empty_in_timezone = r.timezone;
  }
  return out;
}

// ---- raw events ------------------------------------------------------------------------------

const RAW_EVENT_COLUMNS = [
  'id',
  'shipment_id',
  'carrier_event_id',
  'equipment_reference',
  'event_type',
  'event_code',
  'classifier',
  'event_at',
  'event_created_at',
  'location_locode',
  'vessel_name',
  'vessel_imo',
  'voyage_number',
  'payload',
  'created_at',
] as const;

/** A raw carrier event as the API reads it: the table's row without its account. */
export type RawEventRow = Pick<Selectable<RawEventsTable>, (typeof RAW_EVENT_COLUMNS)[number]>;

/** What a container's raw events take from its shipment: its line, POL, POD and destination. */
export function rawEventShipment(db: Kysely<DB>, shipmentId: string) {
  return db
    .selectFrom('shipments')
    .select(['scac', 'port_of_lading_locode', 'port_of_discharge_locode', 'destination_locode'])
    .where('id', '=', shipmentId)
    .executeTakeFirst();
}

/**
 * The raw events of a container: those of its shipment naming this container, plus those that
 * name no container (vessel movements, document events). Ordered by event time, then id.
 */
export async function listRawEvents(
  db: Kysely<DB>,
  accountId: string,
  shipmentId: string,
  containerNumber: string,
  page: Page,
): Promise<{ rows: RawEventRow[]; total: number }> {
  const q = db
    .selectFrom('raw_events')
    .where('account_id', '=', accountId)
    .where('shipment_id', '=', shipmentId)
    .where((eb) =>
      eb.or([eb('equipment_reference', '=', containerNumber), eb('equipment_reference', 'is', null)]),
    );
  return paged(
    q
      .select(RAW_EVENT_COLUMNS)
      .orderBy('event_at', (ob) => ob.asc().nullsLast())
      .orderBy('id'),
    q.select(total),
    page,
  );
}
