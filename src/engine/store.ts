import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB, TransportEventsTable } from '../db/schema.ts';
import { type NewDomainEvent, recordDomainEvents } from '../domain-events/record.ts';
import { iso } from '../util/iso.ts';
import {
  CONTAINER_FIELDS,
  type ContainerFacts,
  type ContainerField,
  type EventFacts,
  type Plan,
  type ShipmentFacts,
  type StoredState,
} from './diff.ts';
import { ensureVessels, vesselKey } from './vessels.ts';

/** The columns of a stored transport event the engine compares (not its rendered JSON). */
const EVENT_COLUMNS = [
  'id',
  'account_id',
  'shipment_id',
  'container_id',
  'key',
  'event',
  'timestamp',
  'timestamp_inferred_zone',
  'timezone',
  'location_locode',
  'terminal_id',
  'vessel_id',
  'voyage_number',
  'data_source',
  'invalidated_at',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof TransportEventsTable>;

// Reads the stored normalized state of a shipment and writes a diff plan back, inside the
// caller's transaction. Row types stay here.

// The container facts that are timestamps (stored as timestamptz, compared as ISO strings).
const CONTAINER_TIME_FIELDS = CONTAINER_FIELDS.filter((f): f is Extract<ContainerField, `${string}_at`> =>
  f.endsWith('_at'),
);

export async function loadStoredState(
  tx: Kysely<DB>,
  shipmentId: string,
): Promise<StoredState & OriginalEstimates & { last_changed_at: Date | null }> {
  const s = await tx
    .selectFrom('shipments')
    .leftJoin('vessels', 'vessels.id', 'shipments.pod_vessel_id')
    .selectAll('shipments')
    .select(['vessels.imo as vessel_imo', 'vessels.name as vessel_name'])
    .where('shipments.id', '=', shipmentId)
    .executeTakeFirstOrThrow();
  const containers = await tx
    .selectFrom('containers')
    .selectAll()
    .where('shipment_id', '=', shipmentId)
    .execute();
  const events = containers.length
    ? await tx
        .selectFrom('transport_events')
        .leftJoin('vessels', 'vessels.id', 'transport_events.vessel_id')
        // Named, not selectAll: the row also stores its rendered JSON (migrations/0043).
        .select(EVENT_COLUMNS.map((c) => `transport_events.${c}` as const))
        .select(['vessels.imo as vessel_imo', 'vessels.name as vessel_name'])
        .where('transport_events.shipment_id', '=', shipmentId)
        // The terminal's events (terminal-check.ts) are not the carrier's to correct or invalidate.
        .where('transport_events.data_source', '<>', 'terminal')
        .execute()
    : [];
  const shipment: ShipmentFacts = {
    bill_of_lading_number: s.bill_of_lading_number,
    port_of_lading_locode: s.port_of_lading_locode,
    port_of_discharge_locode: s.port_of_discharge_locode,
    destination_locode: s.destination_locode,
    transshipment_locodes: s.transshipment_locodes,
    pod_terminal_id: s.pod_terminal_id,
    pod_vessel: s.vessel_imo || s.vessel_name ? { imo: s.vessel_imo, name: s.vessel_name } : null,
    pod_voyage_number: s.pod_voyage_number,
    pol_etd_at: iso(s.pol_etd_at),
    pol_atd_at: iso(s.pol_atd_at),
    pod_eta_at: iso(s.pod_eta_at),
    pod_ata_at: iso(s.pod_ata_at),
    destination_eta_at: iso(s.destination_eta_at),
    destination_ata_at: iso(s.destination_ata_at),
  };
  return {
    shipment,
    pod_original_eta_at: iso(s.pod_original_eta_at),
    pol_original_etd_at: iso(s.pol_original_etd_at),
    destination_original_eta_at: iso(s.destination_original_eta_at),
    last_changed_at: s.last_changed_at,
    containers: containers.map((c) => {
      const facts = {
        equipment_type: c.equipment_type,
        equipment_length: c.equipment_length,
        equipment_height: c.equipment_height,
        iso_equipment_code: c.iso_equipment_code,
        seal_number: c.seal_number,
        pod_terminal_id: c.pod_terminal_id,
        current_status: c.current_status,
      } as ContainerFacts;
      for (const f of CONTAINER_TIME_FIELDS) (facts as Record<string, unknown>)[f] = iso(c[f]);
      return {
        id: c.id,
        number: c.number,
        stopped: c.tracking_stopped_at !== null,
        facts,
        events: events
          .filter((e) => e.container_id === c.id)
          .map((e) => ({
            id: e.id,
            key: e.key,
            event: e.event,
            timestamp: iso(e.timestamp),
            timestamp_inferred_zone: e.timestamp_inferred_zone,
            timezone: e.timezone,
            location_locode: e.location_locode,
            terminal_id: e.terminal_id,
            vessel: e.vessel_imo || e.vessel_name ? { imo: e.vessel_imo, name: e.vessel_name } : null,
            voyage_number: e.voyage_number,
            data_source: e.data_source,
            invalidated_at: iso(e.invalidated_at),
          })),
      };
    }),
  };
}

/** The first estimates the line gave, kept for good (shipments.*_original_*). */
export interface OriginalEstimates {
  pod_original_eta_at: string | null;
  pol_original_etd_at: string | null;
  destination_original_eta_at: string | null;
}

export interface ApplyContext {
  accountId: string;
  shipmentId: string;
  trackingRequestId: string | null;
  podOriginalEtaAt: string | null;
  polOriginalEtdAt?: string | null;
  destinationOriginalEtaAt?: string | null;
  /** Ids of the shipment's stored containers by number, when the caller has them (else read). */
  containerIds?: ReadonlyMap<string, string>;
  /** More columns of the shipment to set in the plan's UPDATE of it (the attempt's bookkeeping). */
  shipmentBookkeeping?: Record<string, unknown>;
}

/** Writes the plan and its domain events. Returns the domain events recorded (for tests/metrics). */
export async function applyPlan(tx: Kysely<DB>, ctx: ApplyContext, plan: Plan): Promise<NewDomainEvent[]> {
  const vesselIds = await ensureVessels(tx, [
    plan.shipment.pod_vessel ?? null,
    ...plan.newContainers.flatMap((c) => c.events.map((e) => e.vessel)),
    ...plan.newEvents.map((e) => e.event.vessel),
    ...plan.eventUpdates.map((e) => e.event.vessel),
    ...plan.estimates.map((e) => e.vessel),
  ]);
  const vid = (v: { imo: string | null; name: string | null } | null | undefined) =>
    v ? (vesselIds.get(vesselKey(v)) ?? null) : null;

  // Shipment attributes.
  const { pod_vessel, ...shipmentRest } = plan.shipment;
  const shipmentPatch: Record<string, unknown> = { ...shipmentRest, ...ctx.shipmentBookkeeping };
  if ('pod_vessel' in plan.shipment) shipmentPatch.pod_vessel_id = vid(pod_vessel);
  // The first arrival estimate the line gave is kept for good.
  if (plan.shipment.pod_eta_at && !ctx.podOriginalEtaAt)
    shipmentPatch.pod_original_eta_at = plan.shipment.pod_eta_at;
  if (plan.shipment.pol_etd_at && !ctx.polOriginalEtdAt)
    shipmentPatch.pol_original_etd_at = plan.shipment.pol_etd_at;
  if (plan.shipment.destination_eta_at && !ctx.destinationOriginalEtaAt)
    shipmentPatch.destination_original_eta_at = plan.shipment.destination_eta_at;
  if (Object.keys(shipmentPatch).length) {
    await tx.updateTable('shipments').set(shipmentPatch).where('id', '=', ctx.shipmentId).execute();
  }

  // Containers.
  const containerIds = new Map<string, string>(ctx.containerIds);
  if (!ctx.containerIds) {
    for (const c of await tx
      .selectFrom('containers')
      .select(['id', 'number'])
      .where('shipment_id', '=', ctx.shipmentId)
      .execute()) {
      containerIds.set(c.number, c.id);
    }
  }
  const newContainers = plan.newContainers.map((c) => {
    const id = randomUUID();
    containerIds.set(c.number, id);
    return {
      id,
      account_id: ctx.accountId,
      shipment_id: ctx.shipmentId,
      number: c.number,
      ...containerColumns(c.facts),
    };
  });
  for (const u of plan.containerUpdates) {
    await tx
      .updateTable('containers')
      .set({ ...containerColumns(u.changes), updated_at: sql<Date>`now()` })
      .where('id', '=', u.id)
      .execute();
  }

  // Transport events.
  const eventIds = new Map<string, string>();
  const inserts = [
    ...plan.newContainers.flatMap((c) => c.events.map((e) => ({ container_number: c.number, event: e }))),
    ...plan.newEvents,
  ].map(({ container_number, event }) => {
    const id = randomUUID();
    eventIds.set(`${container_number}|${event.key}`, id);
    return {
      id,
      account_id: ctx.accountId,
      shipment_id: ctx.shipmentId,
      container_id: containerIds.get(container_number)!,
      ...eventColumns(event, vid(event.vessel)),
    };
  });
  // New containers and their first events in one statement (the containers in a data-modifying
  // CTE): one round trip instead of two. The events' foreign keys and the containers' event lists
  // (migrations/0044, an AFTER trigger) are worked out at the end of the statement, when both exist.
  const first = inserts.slice(0, 500);
  if (newContainers.length && first.length) {
    await tx
      .with('new_containers', (db) => db.insertInto('containers').values(newContainers))
      .insertInto('transport_events')
      .values(first)
      .execute();
  } else if (newContainers.length) {
    await tx.insertInto('containers').values(newContainers).execute();
  } else if (first.length) {
    await tx.insertInto('transport_events').values(first).execute();
  }
  for (let i = 500; i < inserts.length; i += 500) {
    await tx
      .insertInto('transport_events')
      .values(inserts.slice(i, i + 500))
      .execute();
  }
  for (const u of plan.eventUpdates) {
    eventIds.set(`${u.container_number}|${u.event.key}`, u.id);
    await tx
      .updateTable('transport_events')
      .set({
        ...eventColumns(u.event, vid(u.event.vessel)),
        invalidated_at: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', u.id)
      .execute();
  }
  if (plan.eventInvalidations.length) {
    await tx
      .updateTable('transport_events')
      .set({ invalidated_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
      .where(
        'id',
        'in',
        plan.eventInvalidations.map((i) => i.id),
      )
      .execute();
  }

  // Estimated events (the record behind each estimate-change notification).
  const estimateIds = plan.estimates.map(() => randomUUID());
  if (plan.estimates.length) {
    await tx
      .insertInto('estimated_events')
      .values(
        plan.estimates.map((e, i) => ({
          id: estimateIds[i]!,
          account_id: ctx.accountId,
          shipment_id: ctx.shipmentId,
          container_id: e.container_number ? (containerIds.get(e.container_number) ?? null) : null,
          event: e.event,
          estimated_timestamp: e.estimated_timestamp,
          previous_timestamp: e.previous_timestamp,
          location_locode: e.location_locode,
          timezone: null,
          vessel_id: vid(e.vessel),
          voyage_number: e.voyage_number,
        })),
      )
      .execute();
  }

  const domainEvents: NewDomainEvent[] = plan.domainEvents.map((d) => {
    const containerId = d.container_number ? (containerIds.get(d.container_number) ?? null) : null;
    const base = {
      event: d.event,
      account_id: ctx.accountId,
      tracking_request_id: ctx.trackingRequestId,
      shipment_id: ctx.shipmentId,
      container_id: containerId,
      source: 'shipping_line' as const,
    };
    switch (d.reference.kind) {
      case 'transport_event':
        return {
          ...base,
          reference_type: 'transport_event',
          reference_id: eventIds.get(`${d.container_number}|${d.reference.key}`)!,
        };
      case 'estimated_event':
        return {
          ...base,
          reference_type: 'estimated_event',
          reference_id: estimateIds[d.reference.index]!,
          changeset: d.changeset ?? null,
        };
      case 'shipment':
        return { ...base, reference_type: 'shipment', reference_id: ctx.shipmentId, changeset: d.changeset! };
      case 'container':
        return { ...base, reference_type: 'container', reference_id: containerId! };
      case 'container_event':
        return {
          ...base,
          reference_type: CONTAINER_EVENT_TYPES[d.event] ?? 'container_updated_event',
          changeset: d.changeset ?? null,
        };
      default:
        throw new Error(`unknown reference kind ${(d.reference as { kind: string }).kind}`);
    }
  });
  await recordDomainEvents(tx, domainEvents);
  return domainEvents;
}

/** The resource type each container-level domain event refers to (the reference's names). */
const CONTAINER_EVENT_TYPES: Record<string, string> = {
  'container.created': 'container_created_event',
  'container.updated': 'container_updated_event',
  'container.pod_terminal_changed': 'container_pod_terminal_changed_event',
};

function containerColumns(f: Partial<ContainerFacts>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) out[k] = v;
  return out;
}

function eventColumns(e: EventFacts, vesselId: string | null) {
  return {
    key: e.key,
    event: e.event,
    timestamp: e.timestamp,
    timestamp_inferred_zone: e.timestamp_inferred_zone,
    timezone: e.timezone,
    location_locode: e.location_locode,
    terminal_id: e.terminal_id,
    vessel_id: vesselId,
    voyage_number: e.voyage_number,
    data_source: e.data_source,
  };
}
