import {
  CONTAINER_FIELDS,
  type ContainerFacts,
  type EventFacts,
  type ShipmentFacts,
  type snapshotFacts,
} from './facts.ts';
import type { VesselRef } from './types.ts';

export {
  CONTAINER_FIELDS,
  type ContainerFacts,
  type ContainerField,
  type EventFacts,
  type Resolve,
  type ShipmentFacts,
  snapshotFacts,
} from './facts.ts';

// Change detection, pure: the stored state and a new normalized snapshot in, the writes and the
// domain events out. Identical inputs produce an empty plan, so re-reading unchanged carrier
// data records nothing. Terminals arrive already resolved to ids (reference data); vessels are
// compared by IMO, else by name.

export interface StoredContainer {
  id: string;
  number: string;
  facts: ContainerFacts;
  /** Every stored event, including invalidated ones (invalidated_at set). */
  events: Array<EventFacts & { id: string; invalidated_at?: string | null }>;
  /**
   * A user stopped tracking this container alone (container-tracking.ts): what the carrier says
   * of it is not read, so its facts and events stay as stored and nothing is announced for it.
   */
  stopped?: boolean;
}

/**
 * Milestones read from actual events. When a recomputation invalidates stored events (a port first
 * taken for the POD turns out to be a transshipment), these follow the recomputed value, null
 * included; otherwise a value the carrier stops reporting is kept (see diff()).
 */
export const ACTUAL_CONTAINER_FIELDS: ReadonlySet<string> = new Set([
  'pod_arrived_at',
  'pod_discharged_at',
  'pod_full_out_at',
  'empty_terminated_at',
  'pod_rail_loaded_at',
  'pod_rail_departed_at',
  'ind_ata_at',
  'ind_rail_unloaded_at',
  'final_destination_full_out_at',
  'empty_out_at',
  'pol_full_in_at',
  'pol_vessel_loaded_at',
  'pol_vessel_departed_at',
  'delivered_at',
]);
const ACTUAL_SHIPMENT_FIELDS: ReadonlySet<string> = new Set([
  'pol_atd_at',
  'pod_ata_at',
  'destination_ata_at',
]);

export interface StoredState {
  shipment: ShipmentFacts;
  containers: StoredContainer[];
}

export type Change = [old: unknown, new: unknown];

export interface DomainEventPlan {
  event: string;
  container_number: string | null;
  /** What the event is about: a transport event (by container + key), the shipment, or the container. */
  reference:
    | { kind: 'transport_event'; key: string }
    | { kind: 'estimated_event'; index: number }
    | { kind: 'container' }
    | { kind: 'container_event' }
    | { kind: 'shipment' };
  changeset?: Record<string, Change>;
}

export interface EstimatePlan {
  event: string;
  container_number: string | null;
  estimated_timestamp: string;
  previous_timestamp: string | null;
  location_locode: string | null;
  vessel: VesselRef | null;
  voyage_number: string | null;
}

export interface Plan {
  shipment: Partial<ShipmentFacts>;
  /** Containers to create, with their events. */
  newContainers: Array<{ number: string; facts: ContainerFacts; events: EventFacts[] }>;
  containerUpdates: Array<{
    id: string;
    number: string;
    changes: Partial<ContainerFacts>;
    changeset: Record<string, Change>;
  }>;
  newEvents: Array<{ container_number: string; event: EventFacts }>;
  /** Stored events (and, for new ones, their containers) whose update also re-validates them. */
  eventUpdates: Array<{ id: string; container_number: string; event: EventFacts }>;
  /** Stored events the recomputed journey no longer contains: marked invalidated, kept. */
  eventInvalidations: Array<{ id: string; container_number: string; key: string; event: string }>;
  estimates: EstimatePlan[];
  domainEvents: DomainEventPlan[];
  /** Anything at all changed (for no_updates_at_line). */
  changed: boolean;
}

const sameVessel = (a: VesselRef | null, b: VesselRef | null) =>
  a === b || (!!a && !!b && (a.imo && b.imo ? a.imo === b.imo : a.name === b.name));

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  if (a && b && typeof a === 'object' && typeof b === 'object')
    return sameVessel(a as VesselRef, b as VesselRef);
  if (typeof a === 'string' && typeof b === 'string' && isIso(a) && isIso(b))
    return Date.parse(a) === Date.parse(b);
  return a === b;
}

const isIso = (s: string) => /^\d{4}-\d{2}-\d{2}T/.test(s);

const EVENT_COMPARED: Array<keyof EventFacts> = [
  'event',
  'timestamp',
  'timezone',
  'location_locode',
  'terminal_id',
  'vessel',
  'voyage_number',
];

/**
 * Plans the writes and domain events that bring `stored` to `snapshot`. `initial` (the shipment
 * was just created) records the state without announcing each piece of it.
 */
export function diff(stored: StoredState, next: ReturnType<typeof snapshotFacts>, initial: boolean): Plan {
  const plan: Plan = {
    shipment: {},
    newContainers: [],
    containerUpdates: [],
    newEvents: [],
    eventUpdates: [],
    eventInvalidations: [],
    estimates: [],
    domainEvents: [],
    changed: false,
  };
  const storedByNumber = new Map(stored.containers.map((c) => [c.number, c]));
  const transportEvents: Array<DomainEventPlan & { at: string | null }> = [];
  // A stopped container gets no estimate of the shipment's either.
  const containerNumbers = next.containers
    .map((c) => c.number)
    .filter((n) => !storedByNumber.get(n)?.stopped);
  let anyInvalidated = false;
  const terminalChanges: DomainEventPlan[] = [];
  const podChanged =
    next.shipment.port_of_discharge_locode !== null &&
    !sameValue(stored.shipment.port_of_discharge_locode, next.shipment.port_of_discharge_locode);

  for (const c of next.containers) {
    const old = storedByNumber.get(c.number);
    if (!old) {
      plan.newContainers.push({ number: c.number, facts: c.facts, events: c.events });
      if (!initial) {
        plan.domainEvents.push({
          event: 'container.created',
          container_number: c.number,
          reference: { kind: 'container_event' },
        });
        for (const e of c.events) {
          transportEvents.push({
            event: e.event,
            container_number: c.number,
            reference: { kind: 'transport_event', key: e.key },
            at: e.timestamp,
          });
        }
      }
      continue;
    }
    if (old.stopped) continue;
    // Recompute, then diff (CARRIER-NOTES §5.7): a stored event the journey, read again from all
    // the carrier's data, reads differently now (another event at the same place) was a wrong
    // reading. An event simply missing from the answer is kept: a carrier that stops reporting
    // old events (or the box) is not a correction.
    const nextKeys = new Set(c.events.map((e) => e.key));
    const nextPlaces = new Set(c.events.map((e) => e.location_locode));
    let invalidated = false;
    if (c.events.length > 0) {
      for (const prev of old.events) {
        if (nextKeys.has(prev.key) || prev.invalidated_at || !nextPlaces.has(prev.location_locode)) continue;
        plan.eventInvalidations.push({
          id: prev.id,
          container_number: c.number,
          key: prev.key,
          event: prev.event,
        });
        invalidated = true;
      }
    }
    if (invalidated) anyInvalidated = true;
    const changes: Partial<ContainerFacts> = {};
    const changeset: Record<string, Change> = {};
    for (const f of CONTAINER_FIELDS) {
      const was = old.facts[f];
      const now = c.facts[f];
      if (now === null && was !== null && !erasable(f, invalidated, podChanged)) continue;
      if (!sameValue(was, now)) {
        (changes as Record<string, unknown>)[f] = now;
        changeset[f] = [was, now];
      }
    }
    if (Object.keys(changes).length)
      plan.containerUpdates.push({ id: old.id, number: c.number, changes, changeset });
    // A known POD terminal replaced by another (the carrier re-planned the call): announced.
    const [wasTerminal, nowTerminal] = changeset.pod_terminal_id ?? [null, null];
    if (!initial && wasTerminal && nowTerminal) {
      terminalChanges.push({
        event: 'container.pod_terminal_changed',
        container_number: c.number,
        reference: { kind: 'container_event' },
        changeset: { pod_terminal_id: [wasTerminal, nowTerminal] },
      });
    }

    const oldEvents = new Map(old.events.map((e) => [e.key, e]));
    for (const e of c.events) {
      const prev = oldEvents.get(e.key);
      if (!prev) plan.newEvents.push({ container_number: c.number, event: e });
      else if (prev.invalidated_at || EVENT_COMPARED.some((k) => !sameValue(prev[k], e[k])))
        plan.eventUpdates.push({ id: prev.id, container_number: c.number, event: e });
      else continue;
      // New, or a correction (new time or place for the same milestone): announced either way.
      if (!initial) {
        transportEvents.push({
          event: e.event,
          container_number: c.number,
          reference: { kind: 'transport_event', key: e.key },
          at: e.timestamp,
        });
      }
    }
  }

  for (const k of Object.keys(next.shipment) as Array<keyof ShipmentFacts>) {
    // A carrier that stops reporting a value (e.g. an ETA after arrival) does not erase what we know.
    if (next.shipment[k] === null && stored.shipment[k] !== null && !erasable(k, anyInvalidated, podChanged))
      continue;
    if (!sameValue(stored.shipment[k], next.shipment[k]))
      (plan.shipment as Record<string, unknown>)[k] = next.shipment[k];
  }

  // Transport events in journey order, then estimates, then container attribute changes.
  transportEvents.sort(
    (a, b) => (a.at ?? '\uffff').localeCompare(b.at ?? '\uffff') || a.event.localeCompare(b.event),
  );
  plan.domainEvents.push(...transportEvents.map(({ at: _at, ...d }) => d));
  plan.domainEvents.push(...terminalChanges);

  if (!initial) {
    const estimate = (event: string, field: 'pod_eta_at' | 'pol_etd_at', location: string | null) => {
      const now = next.shipment[field];
      const was = stored.shipment[field];
      if (now === null || sameValue(was, now)) return;
      const base = {
        estimated_timestamp: now,
        previous_timestamp: was,
        location_locode: location,
        vessel: next.shipment.pod_vessel,
        voyage_number: next.shipment.pod_voyage_number,
      };
      if (field === 'pod_eta_at') {
        plan.estimates.push({ event: 'shipment.estimated.arrival', container_number: null, ...base });
        plan.domainEvents.push({
          event: 'shipment.estimated.arrival',
          container_number: null,
          reference: { kind: 'estimated_event', index: plan.estimates.length - 1 },
        });
      }
      for (const n of containerNumbers) {
        plan.estimates.push({ event, container_number: n, ...base });
        plan.domainEvents.push({
          event,
          container_number: n,
          reference: { kind: 'estimated_event', index: plan.estimates.length - 1 },
        });
      }
    };
    estimate(
      'container.transport.estimated.vessel_arrived',
      'pod_eta_at',
      next.shipment.port_of_discharge_locode,
    );
    estimate(
      'container.transport.estimated.vessel_departed',
      'pol_etd_at',
      next.shipment.port_of_lading_locode,
    );
    for (const c of next.containers) {
      const old = storedByNumber.get(c.number);
      const now = c.facts.ind_eta_at as string | null;
      if (!old || old.stopped || now === null || sameValue(old.facts.ind_eta_at, now)) continue;
      plan.estimates.push({
        event: 'container.transport.estimated.arrived_at_inland_destination',
        container_number: c.number,
        estimated_timestamp: now,
        previous_timestamp: old.facts.ind_eta_at as string | null,
        location_locode: next.shipment.destination_locode,
        vessel: null,
        voyage_number: null,
      });
      plan.domainEvents.push({
        event: 'container.transport.estimated.arrived_at_inland_destination',
        container_number: c.number,
        reference: { kind: 'estimated_event', index: plan.estimates.length - 1 },
        // container.updated leaves the inland ETA to this event: its change is kept here.
        changeset: { ind_eta_at: [old.facts.ind_eta_at, now] },
      });
    }
    for (const u of plan.containerUpdates) {
      const { ind_eta_at: _eta, ...changeset } = u.changeset;
      if (Object.keys(changeset).length) {
        plan.domainEvents.push({
          event: 'container.updated',
          container_number: u.number,
          reference: { kind: 'container_event' },
          changeset,
        });
      }
    }
  }

  const shipmentChanges = shipmentChangeset(stored.shipment, plan.shipment);
  if (!initial && shipmentChanges) {
    // No webhook event: the shipment's changes, kept for its change history (src/changes/).
    plan.domainEvents.push({
      event: 'shipment.changed',
      container_number: null,
      reference: { kind: 'shipment' },
      changeset: shipmentChanges,
    });
  }

  plan.changed =
    Object.keys(plan.shipment).length > 0 ||
    plan.newContainers.length > 0 ||
    plan.containerUpdates.length > 0 ||
    plan.newEvents.length > 0 ||
    plan.eventUpdates.length > 0 ||
    plan.eventInvalidations.length > 0;
  return plan;
}

/**
 * May a known value become null? Actual milestones, when stored events were invalidated (they
 * are recomputed from what remains); the POD terminal, only when the POD itself changed (a
 * terminal of the old port would be wrong; otherwise a terminal once known is never blanked).
 */
function erasable(field: string, invalidated: boolean, podChanged: boolean): boolean {
  if (field === 'pod_terminal_id') return podChanged;
  return invalidated && (ACTUAL_CONTAINER_FIELDS.has(field) || ACTUAL_SHIPMENT_FIELDS.has(field));
}

/** The shipment's changes as [before, after] by served attribute name (the vessel as its name and IMO). */
function shipmentChangeset(was: ShipmentFacts, patch: Partial<ShipmentFacts>): Record<string, Change> | null {
  const out: Record<string, Change> = {};
  for (const [k, now] of Object.entries(patch)) {
    if (k !== 'pod_vessel') {
      out[k] = [was[k as keyof ShipmentFacts], now];
      continue;
    }
    const [a, b] = [was.pod_vessel, now as VesselRef | null];
    if ((a?.name ?? null) !== (b?.name ?? null)) out.pod_vessel_name = [a?.name ?? null, b?.name ?? null];
    if ((a?.imo ?? null) !== (b?.imo ?? null)) out.pod_vessel_imo = [a?.imo ?? null, b?.imo ?? null];
  }
  return Object.keys(out).length ? out : null;
}
