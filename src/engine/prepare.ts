// Preparation for the normalizer: take each readable record of the carrier snapshot, resolve its
// place, zone and times, then deduplicate twice: by the carrier's event id (overlapping polls,
// push retries) and by semantic key (a later recorded time is a correction or a re-estimate,
// CARRIER-NOTES §6). The result depends only on the set of distinct events, never on their order.
// Pure; never throws on any input.

import {
  type CarrierRecord,
  type NumberType,
  normalizeContainerNumber,
  type SnapshotCall,
  type SnapshotEvent,
  type TransportMode,
} from './snapshot.ts';
import { type ParsedTime, parseTimestamp } from './time.ts';

export interface PrepareContext {
  numberType: NumberType;
  number: string;
  zoneOf: (locode: string) => string | null;
  zuluIsLocal?: boolean;
}

/** One distinct, parsed event with its location, zone and times resolved. */
export interface Ev {
  p: SnapshotEvent;
  id: string | null;
  /** Canonical JSON of the raw event: identity for id-less events and the last tie-breaker. */
  canon: string;
  createdMs: number;
  locode: string | null;
  facilityCode: string | null;
  facilityProvider: string | null;
  facilityTypeCode: string | null;
  zone: string | null;
  time: ParsedTime | null;
  mode: TransportMode | null;
  tc: SnapshotCall | null;
  container: string | null;
  semKey: string;
  /** Position in the deduplicated, sorted event list (what Move.idx points at). */
  idx: number;
}

function canonical(v: unknown, ancestors: unknown[] = []): string {
  if (typeof v === 'bigint') return `"${v}n"`;
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (ancestors.includes(v) || ancestors.length > 64) return '"[cycle]"';
  ancestors.push(v);
  let out: string;
  if (Array.isArray(v)) out = `[${v.map((x) => canonical(x, ancestors)).join(',')}]`;
  else {
    const o = v as Record<string, unknown>;
    out = `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], ancestors)}`)
      .join(',')}}`;
  }
  ancestors.pop();
  return out;
}

function safeCanonical(v: unknown): string {
  try {
    return canonical(v);
  } catch {
    return '"[unserializable]"';
  }
}

/** a is the better (newer) version of the same event than b. */
export function newer(a: Ev, b: Ev): boolean {
  if (a.createdMs !== b.createdMs) return a.createdMs > b.createdMs;
  const ta = a.time?.ms ?? Number.NEGATIVE_INFINITY;
  const tb = b.time?.ms ?? Number.NEGATIVE_INFINITY;
  if (ta !== tb) return ta > tb;
  return a.canon > b.canon;
}

export function voyageFor(code: string, tc: SnapshotCall | null): string | null {
  if (!tc) return null;
  // CARRIER-NOTES §4: export voyage on departures and loads, import voyage on arrivals/discharges.
  return code === 'ARRI' || code === 'DISC'
    ? (tc.importVoyage ?? tc.exportVoyage)
    : (tc.exportVoyage ?? tc.importVoyage);
}

export const vesselKey = (tc: SnapshotCall | null): string =>
  tc?.vesselImo ?? tc?.vesselName?.toUpperCase() ?? '';

function semanticKey(e: Ev): string {
  const p = e.p;
  if (p.kind === 'shipment') return ['S', p.code, p.documentTypeCode ?? '', p.documentId ?? ''].join('|');
  // CARRIER-NOTES §6: (type, code, classifier, equipment, call or place, vessel, voyage, sequence).
  // The place (UN/LOCODE + facility) is preferred to transportCallID, which some carriers
  // regenerate; never the event id, which changes with every re-estimate.
  const where = e.locode ? `${e.locode}/${e.facilityCode ?? ''}` : `tc:${e.tc?.transportCallId ?? ''}`;
  // An arrival at the berth is another event than the arrival in port (vessel_berthed beside
  // vessel_arrived), not a correction of it.
  const berth = e.facilityTypeCode === 'BRTH' ? ['BRTH'] : [];
  const common = [p.code, p.certainty, e.mode ?? '', where, vesselKey(e.tc), voyageFor(p.code, e.tc) ?? ''];
  common.push(String(e.tc?.sequence ?? ''));
  if (p.kind === 'transport') return ['T', ...common, ...berth].join('|');
  return ['E', ...common, p.fill ?? '', e.container ?? ''].join('|');
}

export interface Prepared {
  evs: Ev[];
  parsed: number;
  skipped: number;
}

export function prepare(records: readonly CarrierRecord[], ctx: PrepareContext): Prepared {
  const zoneCache = new Map<string, string | null>();
  const zoneOf = (locode: string | null): string | null => {
    if (!locode) return null;
    let z = zoneCache.get(locode);
    if (z === undefined) {
      try {
        const r = ctx.zoneOf(locode);
        z = typeof r === 'string' && r.length > 0 ? r : null;
      } catch {
        z = null;
      }
      zoneCache.set(locode, z);
    }
    return z;
  };
  const lookedUpContainer = ctx.numberType === 'container' ? normalizeContainerNumber(ctx.number) : null;

  const skipped = new Set<string>();
  const byId = new Map<string, Ev>();
  for (const record of records) {
    const p = record?.event ?? null;
    const canon = safeCanonical(record?.raw);
    if (!p) {
      // A reading (IoT, reefer) is understood, just not an event: not counted as unreadable.
      if (!record?.reading) skipped.add(canon);
      continue;
    }
    const tc = p.kind === 'shipment' ? null : p.call;
    // CARRIER-NOTES §6 location order: the event's own place, then the call's.
    const loc = p.kind === 'equipment' && p.place?.locode ? p.place : tc;
    const locode = loc?.locode ?? null;
    const zone = zoneOf(locode);
    const e: Ev = {
      p,
      id: p.eventId,
      canon,
      createdMs: parseTimestamp(p.recordedTime, null)?.ms ?? Number.NEGATIVE_INFINITY,
      locode,
      facilityCode: loc?.facilityCode ?? null,
      facilityProvider: loc?.facilityProvider ?? null,
      facilityTypeCode: loc?.facilityTypeCode ?? null,
      zone,
      time: parseTimestamp(p.eventTime, zone, { zuluIsLocal: ctx.zuluIsLocal === true }),
      mode: tc?.mode ?? null,
      tc,
      container: p.kind === 'equipment' ? (p.container ?? lookedUpContainer) : null,
      semKey: '',
      idx: -1,
    };
    e.semKey = semanticKey(e);
    // Same event id seen twice (overlapping polls, push retries): one event. Without an id, the
    // whole content is the identity.
    const idKey = e.id !== null ? `id:${e.id}` : `c:${canon}`;
    const prev = byId.get(idKey);
    if (!prev || newer(e, prev)) byId.set(idKey, e);
  }
  // Same semantic key: a correction or a re-estimate; the newest-created version wins.
  const bySem = new Map<string, Ev>();
  for (const e of byId.values()) {
    const prev = bySem.get(e.semKey);
    if (!prev || newer(e, prev)) bySem.set(e.semKey, e);
  }
  const evs = [...bySem.values()].sort((a, b) => cmp(a.semKey, b.semKey) || cmp(a.canon, b.canon));
  evs.forEach((e, i) => {
    e.idx = i;
  });
  return { evs, parsed: byId.size, skipped: skipped.size };
}

export const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
