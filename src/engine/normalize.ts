// Carrier snapshot (snapshot.ts) -> NormalizedSnapshot. Pure, deterministic and idempotent: the output
// depends only on the *set* of distinct events, never on their order or on duplicates, so the
// engine can recompute from every stored raw event and diff (CARRIER-NOTES §5.7). Never throws.
//
// Pipeline: readable records -> dedupe by event id -> dedupe by semantic key (a later recorded
// time is a correction or re-estimate) -> per container: legs and port roles (roles.ts), then the
// CARRIER-NOTES §4 table (event-mapping.ts) -> collapse by output key -> sort.
//
// Choices where the notes leave room:
// - Export side = up to the first water load (feeders included); import side = from the POD
//   discharge on. Gate events outside both (e.g. mid-journey) and pre-carriage rail stay raw.
//   With no route or no time, a gate code's natural side is assumed (GTOT EMPTY = export, ...).
// - Inland destination = place of the latest on-carriage arrival after the POD (non-vessel
//   ARRI, rail/truck DISC, laden GTIN at INTE/RAMP, end of a trailing feeder), if not the POD.
// - Estimates: estimated beats planned, then the newest recorded time. Shipment ETA/ETD fields keep
//   the latest estimate even after the actual happened; estimated_events drop it.
// - Vessel calls of the booking apply to every container; containers without LOAD/DISC moves
//   use legs built from those calls. Shipment fields come from the first container (by number)
//   that has a mainline leg.
// - Counts are of distinct records (by event id, else content), so repeats never change them.

import { deriveContainer } from './container.ts';
import { latestOf } from './container-events.ts';
import { isBookingCancellation, isBookingStateEvent } from './event-mapping.ts';
import { type Ev, newer, prepare } from './prepare.ts';
import { assignRoles, buildLegs, completeLegs, type Leg, type Move, type Route } from './roles.ts';
import { type CarrierSnapshot, type NumberType, normalizeContainerNumber } from './snapshot.ts';
import type { NormalizedShipment, NormalizedSnapshot } from './types.ts';

export interface NormalizeContext {
  numberType: NumberType;
  number: string;
  zoneOf: (locode: string) => string | null;
  /** Carrier quirk switch: a trailing `Z` is really local time at the location. Default false. */
  zuluIsLocal?: boolean;
  /** Longest transit (hours) of a leading/trailing vessel leg still counted as a feeder. Default 48. */
  feederMaxTransitHours?: number;
}

export function normalize(snapshot: CarrierSnapshot, ctx: NormalizeContext): NormalizedSnapshot {
  const list = recordsOf(snapshot);
  try {
    return normalizeUnsafe(list, ctx);
  } catch {
    // Unreachable by design (fuzz-tested); if it ever happens, degrade to "nothing usable".
    return emptySnapshot(0, list.length);
  }
}

/** normalize() without the safety net, so tests can prove the net is never needed. */
export function normalizeUnchecked(snapshot: CarrierSnapshot, ctx: NormalizeContext): NormalizedSnapshot {
  return normalizeUnsafe(recordsOf(snapshot), ctx);
}

function recordsOf(snapshot: CarrierSnapshot): CarrierSnapshot['records'] {
  const records = snapshot?.records;
  return Array.isArray(records) ? records : [];
}

function emptyShipment(): NormalizedShipment {
  return {
    bill_of_lading_number: null,
    port_of_lading_locode: null,
    port_of_discharge_locode: null,
    destination_locode: null,
    transshipment_locodes: [],
    pod_terminal: null,
    pod_vessel: null,
    pod_voyage_number: null,
    pol_etd_at: null,
    pol_atd_at: null,
    pod_eta_at: null,
    pod_ata_at: null,
    destination_eta_at: null,
    destination_ata_at: null,
  };
}

/** A snapshot that knows nothing (counts aside). */
export function emptySnapshot(parsed: number, skipped: number): NormalizedSnapshot {
  return {
    shipment: emptyShipment(),
    containers: [],
    booking_cancelled: false,
    parsed_event_count: parsed,
    skipped_event_count: skipped,
  };
}

function normalizeUnsafe(records: CarrierSnapshot['records'], ctx: NormalizeContext): NormalizedSnapshot {
  const { evs, parsed, skipped } = prepare(records, ctx);
  const snapshot = emptySnapshot(parsed, skipped);
  if (evs.length === 0) return snapshot;
  snapshot.booking_cancelled = bookingCancelled(evs);

  const transport = evs.filter((e) => e.p.kind === 'transport');
  const byContainer = new Map<string, Ev[]>();
  const unassigned: Ev[] = [];
  for (const e of evs) {
    if (e.p.kind !== 'equipment') continue;
    if (e.container === null) unassigned.push(e);
    else {
      const group = byContainer.get(e.container);
      if (group) group.push(e);
      else byContainer.set(e.container, [e]);
    }
  }
  // A container lookup answered with vessel calls only still describes that container.
  const lookedUp = ctx.numberType === 'container' ? normalizeContainerNumber(ctx.number) : null;
  if (lookedUp && byContainer.size === 0) byContainer.set(lookedUp, []);
  // An equipment event without a container reference belongs to the only container, if any.
  if (unassigned.length > 0 && byContainer.size === 1) {
    const [only] = byContainer.values();
    only!.push(...unassigned);
  }

  const opts = { feederMaxTransitHours: ctx.feederMaxTransitHours };
  // The journey the booking's vessel calls describe (the plan, and what already happened).
  let callLegs: Leg[] | undefined;
  const planLegs = (): Leg[] => {
    callLegs ??= buildLegs(movesFrom(transport));
    return callLegs;
  };
  const routeFromCalls = (): Route => assignRoles(completeLegs([], planLegs()), opts);

  const derived = [...byContainer.keys()].sort().map((number) => {
    const own = byContainer.get(number)!;
    const moves = movesFrom(own);
    // The box's own legs, continued by the plan beyond them: a port is the POD because the
    // journey ends there, never because the box was discharged there.
    const legs = completeLegs(moves.length > 0 ? buildLegs(moves) : [], planLegs());
    const route = legs.length > 0 ? assignRoles(legs, opts) : routeFromCalls();
    return deriveContainer(number, evs, own, transport, route);
  });
  snapshot.containers = derived.map((d) => d.container);

  const ref =
    derived.find((d) => d.route.main.length > 0) ?? deriveContainer('', evs, [], transport, routeFromCalls());
  snapshot.shipment = { ...ref.shipment, bill_of_lading_number: carrierBillOfLading(evs, ctx) };
  return snapshot;
}

/**
 * The carrier's B/L for a container or booking request: the TRD document reference its events
 * carry (the newest-recorded one, should it change), or a B/L document event's id. Null for a
 * B/L request, whose number is the B/L.
 */
function carrierBillOfLading(evs: Ev[], ctx: NormalizeContext): string | null {
  if (ctx.numberType === 'bill_of_lading') return null;
  return latestOf(evs, (e) => {
    const ref = e.p.documentReferences.find((d) => d.type === 'TRD' && d.value.trim() !== '');
    if (ref) return ref.value.trim().toUpperCase();
    if (e.p.kind === 'shipment' && e.p.documentTypeCode === 'TRD' && e.p.documentId)
      return e.p.documentId.trim().toUpperCase();
    return null;
  });
}

function bookingCancelled(evs: Ev[]): boolean {
  let latest: Ev | null = null;
  for (const e of evs) {
    if (e.p.kind !== 'shipment' || !isBookingStateEvent(e.p.code, e.p.documentTypeCode)) continue;
    if (!latest || newer(e, latest)) latest = e;
  }
  return latest?.p.kind === 'shipment' && isBookingCancellation(latest.p.code, latest.p.documentTypeCode);
}

/** Water moves: laden vessel/barge LOAD/DISC; or, for vessel calls, DEPA/ARRI as load/discharge. */
function movesFrom(evs: Ev[]): Move[] {
  const moves: Move[] = [];
  for (const e of evs) {
    const p = e.p;
    let kind: 'LOAD' | 'DISC' | null = null;
    if (p.kind === 'equipment' && p.fill !== 'empty') {
      // A load or discharge without a transport call is, in practice, a vessel move.
      if (e.mode === null || e.mode === 'vessel' || e.mode === 'barge') {
        kind = p.code === 'LOAD' ? 'LOAD' : p.code === 'DISC' ? 'DISC' : null;
      }
    } else if (p.kind === 'transport' && (e.mode === 'vessel' || e.mode === 'barge')) {
      kind = p.code === 'DEPA' ? 'LOAD' : p.code === 'ARRI' ? 'DISC' : null;
    }
    if (!kind) continue;
    moves.push({
      idx: e.idx,
      kind,
      mode: e.mode === 'barge' ? 'barge' : 'vessel',
      actual: p.certainty === 'actual',
      timeMs: e.time?.ms ?? null,
      createdMs: e.createdMs,
      locode: e.locode,
      vesselImo: e.tc?.vesselImo ?? null,
      vesselName: e.tc?.vesselName?.toUpperCase() ?? null,
      tiebreak: e.semKey,
    });
  }
  return moves;
}
