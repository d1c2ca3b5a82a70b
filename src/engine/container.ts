// One container's view of the journey: its actual events named per CARRIER-NOTES §4 from the port
// roles of its route, its estimates, the container attributes and the shipment fields its route
// implies. Pure.

import {
  betterEstimate,
  type Candidate,
  collapse,
  currentStatus,
  type EstimateCandidate,
  isWaterMode,
  latestOf,
  terminalOf,
  toEstimate,
  toTransportEvent,
  vesselRef,
} from './container-events.ts';
import { decodeIsoEquipmentCode } from './equipment.ts';
import {
  ACTUAL_FOR_ESTIMATE,
  EST_ARRIVED,
  EST_DEPARTED,
  EST_INLAND,
  EXPORT_EQUIPMENT,
  IMPORT_EQUIPMENT,
  INLAND_ARRIVED,
  RAIL_ARRIVED,
  RAIL_DEPARTED,
  RAIL_LOADED,
  RAIL_UNLOADED,
  waterEventName,
} from './event-mapping.ts';
import { cmp, type Ev, newer, voyageFor } from './prepare.ts';
import { endpointRole, type Route } from './roles.ts';
import { attach, byTime, inlandDestination } from './route-position.ts';
import type {
  EstimatedEventName,
  NormalizedContainer,
  NormalizedShipment,
  NormalizedTransportEvent,
  TransportEventName,
} from './types.ts';

export interface Derived {
  container: NormalizedContainer;
  route: Route;
  shipment: NormalizedShipment;
}

export function deriveContainer(
  number: string,
  all: Ev[],
  own: Ev[],
  transport: Ev[],
  route: Route,
): Derived {
  const ownSet = new Set(own);
  const candidates: Candidate[] = [];
  const estimates: EstimateCandidate[] = [];
  const mainLast = route.main[route.main.length - 1] ?? null;
  const pod = route.podLocode;

  // Export side ends at the first water load; import side starts at the POD discharge.
  const firstLeg = route.legs[0];
  const exportUntil = firstLeg?.load?.timeMs ?? null;
  const importFrom = mainLast?.disc?.timeMs ?? mainLast?.load?.timeMs ?? null;
  const side = (e: Ev): 'export' | 'transit' | 'import' | 'unknown' => {
    const t = e.time?.ms;
    if (t == null || (exportUntil === null && importFrom === null)) return 'unknown';
    if (exportUntil !== null && t <= exportUntil) return 'export';
    if (importFrom !== null && t >= importFrom) return 'import';
    return exportUntil === null && importFrom !== null ? 'unknown' : 'transit';
  };
  const importish = (e: Ev): boolean => {
    const s = side(e);
    return s === 'import' || s === 'unknown';
  };

  // 1. Water moves that are leg endpoints (equipment LOAD/DISC); vessel calls are attached below.
  for (const leg of route.legs) {
    for (const end of ['load', 'disc'] as const) {
      const m = leg[end];
      const e = m ? all[m.idx]! : null;
      if (!m || !e || !m.actual || e.p.kind !== 'equipment' || !ownSet.has(e)) continue;
      const name = waterEventName(endpointRole(route, leg, end), m.kind);
      if (name) candidates.push(toTransportEvent(name, e, false));
    }
  }

  // 2. Vessel/barge calls of the booking: departures and arrivals at leg endpoints only.
  for (const t of transport) {
    if (!isWaterMode(t.mode)) continue;
    const at = attach(t, all, route);
    if (!at) continue;
    const role = endpointRole(route, at.leg, at.end);
    const move = t.p.code === 'DEPA' ? 'DEPA' : 'ARRI';
    if (t.p.certainty === 'actual') {
      const name = waterEventName(role, move, t.facilityTypeCode === 'BRTH');
      if (name) candidates.push(toTransportEvent(name, t, false));
    } else if (role === 'pol' && move === 'DEPA') {
      const est = toEstimate(EST_DEPARTED, t);
      if (est) estimates.push(est);
    } else if (role === 'pod' && move === 'ARRI') {
      const est = toEstimate(EST_ARRIVED, t);
      if (est) estimates.push(est);
    }
  }

  // 3. Gate, yard and inland equipment events.
  for (const e of own) {
    const p = e.p;
    if (p.kind !== 'equipment' || p.certainty !== 'actual') continue;
    const s = side(e);
    const gateKey = `${p.code}/${p.fill ?? 'laden'}`;
    const exportName = EXPORT_EQUIPMENT[gateKey];
    const importName = IMPORT_EQUIPMENT[gateKey];
    if (exportName && (s === 'export' || (s === 'unknown' && !importName))) {
      candidates.push(toTransportEvent(exportName, e, true));
    } else if (importName && (s === 'import' || s === 'unknown')) {
      candidates.push(toTransportEvent(importName, e, true));
    } else if (e.mode === 'rail' && p.fill !== 'empty' && importish(e)) {
      // Pre-carriage rail (before the POL) is kept raw only: the catalogue's rail events are
      // the import side's.
      if (p.code === 'LOAD') candidates.push(toTransportEvent(RAIL_LOADED, e, false));
      if (p.code === 'DISC') candidates.push(toTransportEvent(RAIL_UNLOADED, e, false));
    }
  }
  for (const t of transport) {
    if (t.mode !== 'rail' || t.p.certainty !== 'actual' || !importish(t)) continue;
    if (t.p.code === 'DEPA') candidates.push(toTransportEvent(RAIL_DEPARTED, t, false));
    if (t.p.code === 'ARRI') candidates.push(toTransportEvent(RAIL_ARRIVED, t, false));
  }

  // 4. Inland destination: the last on-carriage arrival after the POD (CARRIER-NOTES §5.5).
  const destination = inlandDestination(all, own, transport, route, pod, importish);
  if (destination) {
    const arrivals = transport
      .filter(
        (t) => t.p.code === 'ARRI' && t.mode !== 'vessel' && t.mode !== null && t.locode === destination,
      )
      .filter(importish);
    const actual = arrivals.filter((t) => t.p.certainty === 'actual').sort(byTime)[0];
    const gateIn = own
      .filter(
        (e) =>
          e.p.kind === 'equipment' &&
          e.p.certainty === 'actual' &&
          e.p.code === 'GTIN' &&
          e.p.fill !== 'empty' &&
          (e.facilityTypeCode === 'INTE' || e.facilityTypeCode === 'RAMP') &&
          e.locode === destination &&
          importish(e),
      )
      .sort(byTime)[0];
    const arrival = actual ?? gateIn;
    if (arrival) candidates.push(toTransportEvent(INLAND_ARRIVED, arrival, arrival === gateIn));
    for (const t of arrivals) {
      if (t.p.certainty === 'actual') continue;
      const est = toEstimate(EST_INLAND, t);
      if (est) estimates.push(est);
    }
  }

  // 5. Collapse by key (a correction that survived as a separate message keeps one event).
  const events = collapse(candidates);
  const bestEstimates = new Map<string, EstimateCandidate>();
  for (const c of estimates) {
    const prev = bestEstimates.get(c.est.key);
    if (!prev || betterEstimate(c.src, prev.src)) bestEstimates.set(c.est.key, c);
  }
  const estimateFor = (name: EstimatedEventName): string | null =>
    [...bestEstimates.values()].find((c) => c.est.event === name)?.est.estimated_time ?? null;
  const actualNames = new Set(events.map((e) => e.event));
  const estimated = [...bestEstimates.values()]
    .map((c) => c.est)
    .filter((est) => !actualNames.has(ACTUAL_FOR_ESTIMATE[est.event]))
    .sort((a, b) => cmp(a.estimated_time, b.estimated_time) || cmp(a.key, b.key));

  const first = (name: TransportEventName, where?: (e: NormalizedTransportEvent) => boolean) =>
    events.find((e) => e.event === name && (!where || where(e)))?.timestamp ?? null;
  const last = (name: TransportEventName, where?: (e: NormalizedTransportEvent) => boolean) =>
    events.filter((e) => e.event === name && (!where || where(e))).at(-1)?.timestamp ?? null;
  const P = 'container.transport.';
  const atPod = (e: NormalizedTransportEvent) =>
    pod === null || e.location_locode === null || e.location_locode === pod;
  const atDest = (e: NormalizedTransportEvent) => destination !== null && e.location_locode === destination;

  const equipment = latestOf(own, (e) => (e.p.kind === 'equipment' ? e.p.isoEquipmentCode : null));
  const seal = latestOf(own, (e) => (e.p.kind === 'equipment' ? e.p.sealNumber : null));
  const indEta = estimateFor(EST_INLAND);
  const indAta = first(INLAND_ARRIVED);
  const container: NormalizedContainer = {
    number,
    ...decodeIsoEquipmentCode(equipment),
    iso_equipment_code: equipment,
    seal_number: seal,
    pod_arrived_at: first(`${P}vessel_arrived`),
    pod_discharged_at: first(`${P}vessel_discharged`),
    pod_full_out_at: first(`${P}full_out`, atPod),
    empty_terminated_at: last(`${P}empty_in`),
    pod_rail_loaded_at: first(RAIL_LOADED),
    pod_rail_departed_at: first(RAIL_DEPARTED),
    ind_eta_at: indEta,
    ind_ata_at: indAta,
    ind_rail_unloaded_at: last(RAIL_UNLOADED, (e) => destination === null || atDest(e)),
    final_destination_full_out_at: destination ? first(`${P}full_out`, atDest) : null,
    empty_out_at: first(`${P}empty_out`),
    pol_full_in_at: first(`${P}full_in`),
    pol_vessel_loaded_at: first(`${P}vessel_loaded`),
    pol_vessel_departed_at: first(`${P}vessel_departed`),
    delivered_at: first(`${P}delivered`),
    current_status: currentStatus(events, destination),
    transport_events: events,
    estimated_events: estimated,
  };

  const podEnd = mainLast?.disc ? all[mainLast.disc.idx]! : null;
  const loadEnd = mainLast?.load ? all[mainLast.load.idx]! : null;
  // The terminal of the POD call: the actual arrival's, else the newest-published plan or estimate
  // (a reassignment is a new estimate at the same port with another facility code).
  const podArrival = mainLast
    ? transport
        .filter((t) => t.p.code === 'ARRI' && terminalOf(t) && attach(t, all, route)?.leg === mainLast)
        .reduce<Ev | undefined>((b, t) => (!b || preferredArrival(t, b) ? t : b), undefined)
    : undefined;
  const shipment: NormalizedShipment = {
    bill_of_lading_number: null, // the normalizer's, from every event (normalize.ts)
    port_of_lading_locode: route.polLocode,
    port_of_discharge_locode: pod,
    destination_locode: destination,
    transshipment_locodes: route.transshipmentLocodes,
    pod_terminal:
      (podEnd?.p.certainty === 'actual' ? terminalOf(podEnd) : null) ??
      (podArrival ? terminalOf(podArrival) : null) ??
      (podEnd ? terminalOf(podEnd) : null),
    pod_vessel: vesselRef(podEnd?.tc ?? null) ?? vesselRef(loadEnd?.tc ?? null),
    pod_voyage_number: podEnd ? voyageFor('DISC', podEnd.tc) : loadEnd ? voyageFor('LOAD', loadEnd.tc) : null,
    pol_etd_at: estimateFor(EST_DEPARTED),
    pol_atd_at: first(`${P}vessel_departed`),
    pod_eta_at: estimateFor(EST_ARRIVED),
    pod_ata_at: first(`${P}vessel_arrived`),
    destination_eta_at: indEta,
    destination_ata_at: indAta,
  };
  return { container, route, shipment };
}

/** a is the better source of the POD terminal than b: actual first, then the newest published. */
function preferredArrival(a: Ev, b: Ev): boolean {
  const actA = a.p.certainty === 'actual';
  const actB = b.p.certainty === 'actual';
  if (actA !== actB) return actA;
  return newer(a, b);
}
