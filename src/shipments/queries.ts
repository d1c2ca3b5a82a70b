import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { byId } from '../db/by-ids.ts';
import { afterRow, paged, total } from '../db/paged.ts';
import type { DB } from '../db/schema.ts';
import { type ReadsOf, readsOf } from '../members/kit.ts';
import type { Page } from '../util/page.ts';
import { SHIPMENT, type ShipmentSource } from './members.ts';

// Shipments of one account. Every query filters by account_id; another account's shipment is
// simply not found. Rows are plain objects (the vessel's name and IMO joined in).

// What services read of a shipment beyond what it serves.
const ALSO = ['request_type', 'pod_vessel_id', 'next_refresh_at'] as const;

/** A shipment as the API reads it: the fields its declared members read (members.ts), and ALSO. */
export type ShipmentRow = Pick<ShipmentSource, ReadsOf<typeof SHIPMENT> | 'id' | (typeof ALSO)[number]>;

// Where the fields joined to a shipment row come from: its POD vessel.
const JOINED: Record<string, string> = { pod_vessel_name: 'v.name', pod_vessel_imo: 'v.imo' };

// The select list, made of the declaration (typed as one column for kysely; rows are cast).
const COLUMNS = [...readsOf(SHIPMENT), ...ALSO].map((f) =>
  JOINED[f] ? `${JOINED[f]} as ${f}` : `s.${f}`,
) as unknown as ['s.id'];

function shipmentsWithVessel(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('shipments as s')
    .leftJoin('vessels as v', 'v.id', 's.pod_vessel_id')
    .where('s.account_id', '=', accountId);
}

export const findShipment = byId<ShipmentRow>(async (db, accountId, id) => {
  return shipmentsWithVessel(db, accountId)
    .select(COLUMNS)
    .$castTo<ShipmentRow>()
    .where('s.id', '=', id)
    .executeTakeFirst();
});

/** The caller's shipments among `ids` (others' and unknown ids are skipped). */
export async function shipmentsByIds(
  db: Kysely<DB>,
  accountId: string,
  ids: Array<string | null>,
): Promise<ShipmentRow[]> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))];
  if (wanted.length === 0) return [];
  return shipmentsWithVessel(db, accountId)
    .select(COLUMNS)
    .$castTo<ShipmentRow>()
    .where('s.id', 'in', wanted)
    .execute();
}

export interface ShipmentFilter {
  /** Bill of lading, shipment number, one of its ref numbers, or one of its container numbers. */
  q?: string;
  /** The number the shipment was requested with (normalized_number) or its bill of lading. */
  number?: string;
  tracking_stopped?: boolean;
  updated_start?: Date;
  updated_end?: Date;
  sort: { column: 'created_at' | 'updated_at'; desc: boolean };
  /** Conditions on `s` built by other modules (customer, custom field values: issue 13). */
  where?: Array<Expression<SqlBool>>;
}

const compact = (s: string) => s.replace(/\s+/g, '').toUpperCase();

export async function listShipments(
  db: Kysely<DB>,
  accountId: string,
  f: ShipmentFilter,
  page: Page,
): Promise<{ rows: ShipmentRow[]; total: number }> {
  // Filters only touch `shipments`; the vessel join is added to the page query alone.
  let q = db.selectFrom('shipments as s').where('s.account_id', '=', accountId);
  if (f.q) {
    const term = f.q;
    const number = compact(term);
    q = q.where((eb) =>
      eb.or([
        eb('s.bill_of_lading_number', '=', number),
        eb('s.normalized_number', '=', number),
        sql<boolean>`${term} = any(s.ref_numbers)`,
        eb(
          's.id',
          'in',
          eb
            .selectFrom('containers as c')
            .select('c.shipment_id')
            .where('c.account_id', '=', accountId)
            .where('c.number', '=', number),
        ),
      ]),
    );
  }
  if (f.number) {
    const number = compact(f.number);
    q = q.where((eb) =>
      eb.or([eb('s.normalized_number', '=', number), eb('s.bill_of_lading_number', '=', number)]),
    );
  }
  if (f.tracking_stopped !== undefined) {
    q = q.where('s.line_tracking_stopped_at', f.tracking_stopped ? 'is not' : 'is', null);
  }
  if (f.updated_start) q = q.where('s.updated_at', '>=', f.updated_start);
  if (f.updated_end) q = q.where('s.updated_at', '<=', f.updated_end);
  for (const w of f.where ?? []) q = q.where(w);
  const dir = f.sort.desc ? 'desc' : 'asc';
  const after = page.after;
  return paged(
    (after ? q.where(afterRow('shipments', 's', f.sort.column, f.sort.desc, after)) : q)
      .leftJoin('vessels as v', 'v.id', 's.pod_vessel_id')
      .select(COLUMNS)
      .$castTo<ShipmentRow>()
      .orderBy(`s.${f.sort.column}`, dir)
      .orderBy('s.id', dir),
    q.select(total),
    page,
  );
}

/** Edits ref_numbers and/or tags; answers undefined when the shipment is not the caller's. */
export async function updateShipment(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  patch: { ref_numbers?: string[]; tags?: string[] },
): Promise<ShipmentRow | undefined> {
  if (patch.ref_numbers !== undefined || patch.tags !== undefined) {
    const r = await db
      .updateTable('shipments')
      .set({ ...patch, updated_at: sql<Date>`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning('id')
      .executeTakeFirst();
    if (!r) return undefined;
  }
  return findShipment(db, accountId, id);
}
