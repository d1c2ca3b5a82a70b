// The building blocks of a container's events: one carrier event as a product transport event or
// estimate, the choice between versions, collapsing by key, and the status the events imply.
// Pure.

import { STATUS_AFTER } from './event-mapping.ts';
import { cmp, type Ev, newer, vesselKey, voyageFor } from './prepare.ts';
import type { SnapshotCall, TransportMode } from './snapshot.ts';
import type {
  ContainerStatus,
  EstimatedEventName,
  NormalizedEstimatedEvent,
  NormalizedTransportEvent,
  TerminalRef,
  TransportEventName,
  VesselRef,
} from './types.ts';

export interface Candidate {
  ev: NormalizedTransportEvent;
  src: Ev;
}

export interface EstimateCandidate {
  est: NormalizedEstimatedEvent;
  src: Ev;
}

export const isWaterMode = (m: TransportMode | null): boolean => m === 'vessel' || m === 'barge';
export const shortName = (name: string): string => name.replace('container.transport.', '');

export function vesselRef(tc: SnapshotCall | null): VesselRef | null {
  return tc && (tc.vesselImo || tc.vesselName) ? { imo: tc.vesselImo, name: tc.vesselName } : null;
}

export function terminalOf(e: Ev): TerminalRef | null {
  // SMDG codes are what our terminal table knows; an unlabelled code is most often SMDG too.
  if (!e.locode || !e.facilityCode) return null;
  if (e.facilityProvider !== null && e.facilityProvider !== 'SMDG') return null;
  return { port_locode: e.locode, smdg_code: e.facilityCode };
}

export function toTransportEvent(name: TransportEventName, e: Ev, gate: boolean): Candidate {
  const mode = gate ? null : (e.mode ?? (e.p.code === 'LOAD' || e.p.code === 'DISC' ? 'vessel' : null));
  const voyage = voyageFor(e.p.code, e.tc);
  // The key names the event, not the message: stable across corrections and re-sends.
  const parts = [shortName(name), e.locode ?? ''];
  if (mode === 'vessel' || mode === 'barge') parts.push(vesselKey(e.tc), voyage ?? '');
  return {
    src: e,
    ev: {
      key: parts.join('|'),
      event: name,
      timestamp: e.time?.iso ?? null,
      timestamp_inferred_zone: e.time?.inferredZone ?? false,
      location_locode: e.locode,
      timezone: e.zone,
      terminal: terminalOf(e),
      vessel: vesselRef(e.tc),
      voyage_number: voyage,
      mode,
      data_source: 'shipping_line',
      source_event_ids: e.id ? [e.id] : [],
    },
  };
}

export function toEstimate(name: EstimatedEventName, e: Ev): EstimateCandidate | null {
  if (!e.time) return null;
  return {
    src: e,
    est: {
      key: `${shortName(name)}|${e.locode ?? ''}`,
      event: name,
      estimated_time: e.time.iso,
      location_locode: e.locode,
      timezone: e.zone,
      vessel: vesselRef(e.tc),
      voyage_number: voyageFor(e.p.code, e.tc),
    },
  };
}

/** Best estimate: estimated (current forecast) over planned (schedule), then newest recorded. */
export function betterEstimate(a: Ev, b: Ev): boolean {
  if (a.p.certainty !== b.p.certainty) {
    if (a.p.certainty === 'estimated') return true;
    if (b.p.certainty === 'estimated') return false;
  }
  return newer(a, b);
}

/** The value from the newest-created event that has one (deterministic on ties). */
export function latestOf(evs: Ev[], pick: (e: Ev) => string | null): string | null {
  let best: Ev | null = null;
  for (const e of evs) if (pick(e) !== null && (!best || newer(e, best))) best = e;
  return best ? pick(best) : null;
}

export function collapse(candidates: Candidate[]): NormalizedTransportEvent[] {
  const byKey = new Map<string, Candidate>();
  for (const c of candidates) {
    const prev = byKey.get(c.ev.key);
    if (!prev || newer(c.src, prev.src)) byKey.set(c.ev.key, c);
  }
  return [...byKey.values()]
    .map((c) => c.ev)
    .sort((a, b) => {
      if (a.timestamp !== b.timestamp) {
        if (a.timestamp === null) return 1;
        if (b.timestamp === null) return -1;
        return cmp(a.timestamp, b.timestamp);
      }
      return cmp(a.key, b.key);
    });
}

/** Status after the last actual event; ties on time resolved by journey progress. */
export function currentStatus(
  events: NormalizedTransportEvent[],
  destination: string | null,
): ContainerStatus {
  let best: NormalizedTransportEvent | null = null;
  for (const e of events) {
    if (!best) {
      best = e;
      continue;
    }
    const a = e.timestamp ?? '';
    const b = best.timestamp ?? '';
    if (a > b || (a === b && STATUS_AFTER[e.event].rank > STATUS_AFTER[best.event].rank)) best = e;
  }
  if (!best) return 'new';
  // Discharged at the POD with an inland leg still to come.
  if (best.event === 'container.transport.vessel_discharged' && destination)
    return 'awaiting_inland_transfer';
  // A barge (or feeder) that has reached the inland destination: the box is on the ground there.
  const atDestination = destination !== null && best.location_locode === destination;
  if (atDestination && (best.event.endsWith('feeder_arrived') || best.event.endsWith('feeder_discharged'))) {
    return 'grounded';
  }
  return STATUS_AFTER[best.event].status;
}
