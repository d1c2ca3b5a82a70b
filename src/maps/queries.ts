import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { ContainerFacts, EventFacts, ShipmentFacts } from '../routing/journey.ts';

// What the map, route and vessel-position endpoints read: a container with its shipment's plan
// and schedule, and the container's transport events. Account-scoped; rows become the routing
// domain's plain fact objects here and go no further.

export interface JourneyRows {
  container_id: string;
  container_number: string;
  shipment_id: string;
  /** Latest change to the container or its shipment (the map's `updated_at`). */
  updated_at: Date;
  shipment: ShipmentFacts;
  container: ContainerFacts;
  events: EventFacts[];
}

/**
 * The last vessel arrival the carrier has announced for a shipment (any of PLN/EST/ACT), from the
 * raw carrier events. Used only when the normalized shipment has lost its POD: the engine derives
 * the POD from equipment discharges, and a carrier that sends no planned discharge leaves it empty
 * once the container is loaded (reported; docs/routing.md "Known gaps").
 */
async function lastAnnouncedArrivals(
  db: Kysely<DB>,
  accountId: string,
  shipmentIds: string[],
): Promise<Map<string, { locode: string; eta: Date | null }>> {
  const out = new Map<string, { locode: string; eta: Date | null }>();
  if (shipmentIds.length === 0) return out;
  const rows = await db
    .selectFrom('raw_events')
    .select(['shipment_id', 'location_locode', 'event_at', 'classifier'])
    .where('account_id', '=', accountId)
    .where('shipment_id', 'in', [...new Set(shipmentIds)])
    .where('event_type', '=', 'TRANSPORT')
    .where('event_code', '=', 'ARRI')
    .where('location_locode', 'is not', null)
    .where('event_at', 'is not', null)
    .where((eb) =>
      eb.or([
        eb(sql`payload->'transportCall'->>'modeOfTransport'`, 'is', null),
        eb(sql`payload->'transportCall'->>'modeOfTransport'`, '=', 'VESSEL'),
      ]),
    )
    .orderBy('shipment_id')
    .orderBy('event_at')
    .orderBy('event_created_at')
    .execute();
  for (const r of rows) {
    const prev = out.get(r.shipment_id);
    const eta = r.classifier === 'ACT' ? null : r.event_at;
    if (prev && prev.locode === r.location_locode) prev.eta = eta ?? prev.eta;
    else out.set(r.shipment_id, { locode: r.location_locode!, eta });
  }
  return out;
}

const COLUMNS = [
  'c.id as container_id',
  'c.number as container_number',
  'c.shipment_id',
  'c.updated_at as container_updated_at',
  'c.pod_terminal_id as container_pod_terminal_id',
  'c.ind_eta_at',
  'c.ind_ata_at',
  's.updated_at as shipment_updated_at',
  's.scac',
  's.port_of_lading_locode',
  's.port_of_discharge_locode',
  's.destination_locode',
  's.transshipment_locodes',
  's.pod_terminal_id',
  's.destination_terminal_id',
  's.pod_vessel_id',
  's.pod_voyage_number',
  's.pol_etd_at',
  's.pol_atd_at',
  's.pod_eta_at',
  's.pod_ata_at',
  's.destination_eta_at',
  's.destination_ata_at',
] as const;

/** Journey facts of the given containers of one account (unknown ids are skipped). */
export async function journeyRows(
  db: Kysely<DB>,
  accountId: string,
  containerIds: string[],
): Promise<JourneyRows[]> {
  const ids = [...new Set(containerIds)];
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('containers as c')
    .innerJoin('shipments as s', 's.id', 'c.shipment_id')
    .select(COLUMNS)
    .where('c.account_id', '=', accountId)
    .where('c.id', 'in', ids)
    .execute();
  if (rows.length === 0) return [];
  const events = await db
    .selectFrom('transport_events')
    .select([
      'container_id',
      'event',
      'timestamp',
      'location_locode',
      'terminal_id',
      'vessel_id',
      'voyage_number',
    ])
    .where('account_id', '=', accountId)
    // A reading later data invalidated (engine/diff.ts) is not where the box went.
    .where('invalidated_at', 'is', null)
    .where(
      'container_id',
      'in',
      rows.map((r) => r.container_id),
    )
    .orderBy('container_id')
    .orderBy('timestamp', (ob) => ob.asc().nullsLast())
    .orderBy('key')
    .execute();
  const lost = rows.filter((r) => !r.port_of_discharge_locode).map((r) => r.shipment_id);
  const announced = await lastAnnouncedArrivals(db, accountId, lost);
  const byContainer = new Map<string, EventFacts[]>();
  for (const e of events) {
    const list = byContainer.get(e.container_id) ?? [];
    list.push({
      event: e.event,
      timestamp: e.timestamp,
      location_locode: e.location_locode,
      terminal_id: e.terminal_id,
      vessel_id: e.vessel_id,
      voyage_number: e.voyage_number,
    });
    byContainer.set(e.container_id, list);
  }
  return rows.map((r) => {
    const fallback = r.port_of_discharge_locode ? undefined : announced.get(r.shipment_id);
    const usable =
      fallback && fallback.locode !== r.port_of_lading_locode && fallback.locode !== r.destination_locode;
    return {
      container_id: r.container_id,
      container_number: r.container_number,
      shipment_id: r.shipment_id,
      updated_at:
        r.container_updated_at > r.shipment_updated_at ? r.container_updated_at : r.shipment_updated_at,
      shipment: {
        scac: r.scac,
        port_of_lading_locode: r.port_of_lading_locode,
        port_of_discharge_locode: usable ? fallback.locode : r.port_of_discharge_locode,
        destination_locode: r.destination_locode,
        transshipment_locodes: r.transshipment_locodes,
        pod_terminal_id: r.pod_terminal_id,
        destination_terminal_id: r.destination_terminal_id,
        pod_vessel_id: r.pod_vessel_id,
        pod_voyage_number: r.pod_voyage_number,
        pol_etd_at: r.pol_etd_at,
        pol_atd_at: r.pol_atd_at,
        pod_eta_at: usable ? (r.pod_eta_at ?? fallback.eta) : r.pod_eta_at,
        pod_ata_at: r.pod_ata_at,
        destination_eta_at: r.destination_eta_at,
        destination_ata_at: r.destination_ata_at,
      },
      container: {
        pod_terminal_id: r.container_pod_terminal_id,
        ind_eta_at: r.ind_eta_at,
        ind_ata_at: r.ind_ata_at,
      },
      events: byContainer.get(r.container_id) ?? [],
    };
  });
}

/**
 * One container per shipment of this account that the vessel carries or will carry (named on a
 * transport event or as the shipment's POD vessel), most recently updated shipments first. Every
 * container of a shipment shares its vessel legs, so one per shipment is enough.
 */
export async function containerIdsForVessel(
  db: Kysely<DB>,
  accountId: string,
  vesselId: string,
  limit: number,
): Promise<string[]> {
  const viaEvents = db
    .selectFrom('transport_events')
    .select('shipment_id')
    .where('account_id', '=', accountId)
    .where('vessel_id', '=', vesselId);
  const rows = await db
    .selectFrom('shipments as s')
    .innerJoin('containers as c', 'c.shipment_id', 's.id')
    // min() has no uuid variant in PostgreSQL: compare as text.
    .select(['s.id as shipment_id', sql<string>`min(c.id::text)`.as('container_id')])
    .where('s.account_id', '=', accountId)
    .where((eb) => eb.or([eb('s.pod_vessel_id', '=', vesselId), eb('s.id', 'in', viaEvents)]))
    .groupBy(['s.id', 's.updated_at'])
    .orderBy('s.updated_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => r.container_id);
}
