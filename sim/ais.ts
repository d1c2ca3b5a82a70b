import { portByLocode } from '../src/reference/data.ts';
import { json, type Reply } from './dcsa-http.ts';
import type { Shipment } from './scenarios.ts';

// The simulator's AIS-like feed: where the vessels of the journeys it has served are at a
// simulated instant. The truth is the journey's ACT transport events (the whole journey, not only
// what is published yet): between a departure and the next arrival the vessel moves along the
// great circle at constant speed; between an arrival and the next departure it lies at the port's
// coordinates. Great-circle legs keep sim/ free of the product's sea-route graph (src/routing/),
// which the structure test forbids here; the product draws its own route from the fix onwards.

const HOUR = 3_600_000;
/** A vessel is reported at its port this long before its first departure and after its last arrival. */
const PORT_MARGIN_MS = 24 * HOUR;
const MAX_TRACK_POINTS = 1_000;
const EARTH_NM = 3_440.065;

type LonLat = [number, number];
interface Stop {
  type: 'ARRI' | 'DEPA';
  ms: number;
  point: LonLat;
}
export interface Fix {
  imo: string;
  lon: number;
  lat: number;
  at: string;
  heading: number | null;
  speed_knots: number;
  status: 'under_way' | 'moored';
}

const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

function pointOf(locode: string): LonLat | null {
  const p = portByLocode(locode);
  return p && p.latitude !== null && p.longitude !== null ? [p.longitude, p.latitude] : null;
}

/** The ACT calls of one vessel in one journey, in time order, without duplicates. */
const stopsCache = new WeakMap<Shipment, Map<string, Stop[]>>();
function stopsOf(shipment: Shipment): Map<string, Stop[]> {
  let byImo = stopsCache.get(shipment);
  if (byImo) return byImo;
  byImo = new Map();
  const seen = new Set<string>();
  for (const se of shipment.events) {
    const e = se.event;
    const imo = e.transportCall?.vessel?.vesselIMONumber;
    if (e.eventType !== 'TRANSPORT' || e.eventClassifierCode !== 'ACT' || !imo || !e.transportEventTypeCode)
      continue;
    const point = pointOf(e.transportCall!.UNLocationCode);
    const key = `${imo}:${e.transportEventTypeCode}:${se.eventMs}`;
    if (!point || seen.has(key)) continue;
    seen.add(key);
    const list = byImo.get(imo) ?? [];
    list.push({ type: e.transportEventTypeCode, ms: se.eventMs, point });
    byImo.set(imo, list);
  }
  for (const list of byImo.values()) list.sort((a, b) => a.ms - b.ms);
  stopsCache.set(shipment, byImo);
  return byImo;
}

function distanceNm(a: LonLat, b: LonLat): number {
  const [l1, p1, l2, p2] = [rad(a[0]), rad(a[1]), rad(b[0]), rad(b[1])];
  const h = Math.sin((p2 - p1) / 2) ** 2 + Math.cos(p1) * Math.cos(p2) * Math.sin((l2 - l1) / 2) ** 2;
  return 2 * EARTH_NM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** The point a fraction `f` of the way along the great circle from a to b, and the bearing there. */
function along(a: LonLat, b: LonLat, f: number): { point: LonLat; heading: number } {
  const [l1, p1, l2, p2] = [rad(a[0]), rad(a[1]), rad(b[0]), rad(b[1])];
  const d = distanceNm(a, b) / EARTH_NM;
  let lon = l1;
  let lat = p1;
  if (d > 0) {
    const s1 = Math.sin((1 - f) * d) / Math.sin(d);
    const s2 = Math.sin(f * d) / Math.sin(d);
    const x = s1 * Math.cos(p1) * Math.cos(l1) + s2 * Math.cos(p2) * Math.cos(l2);
    const y = s1 * Math.cos(p1) * Math.sin(l1) + s2 * Math.cos(p2) * Math.sin(l2);
    const z = s1 * Math.sin(p1) + s2 * Math.sin(p2);
    lat = Math.atan2(z, Math.hypot(x, y));
    lon = Math.atan2(y, x);
  }
  const y = Math.sin(l2 - lon) * Math.cos(p2);
  const x = Math.cos(lat) * Math.sin(p2) - Math.sin(lat) * Math.cos(p2) * Math.cos(l2 - lon);
  return { point: [deg(lon), deg(lat)], heading: (deg(Math.atan2(y, x)) + 360) % 360 };
}

function fixFrom(imo: string, atMs: number, point: LonLat, heading: number | null, knots: number): Fix {
  return {
    imo,
    lon: round6(point[0]),
    lat: round6(point[1]),
    at: new Date(atMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    heading: heading === null ? null : Math.round(heading * 10) / 10,
    speed_knots: Math.round(knots * 10) / 10,
    status: knots > 0 ? 'under_way' : 'moored',
  };
}

function positionIn(imo: string, stops: Stop[], atMs: number): Fix | null {
  if (stops.length === 0) return null;
  const first = stops[0]!;
  const last = stops[stops.length - 1]!;
  if (atMs < first.ms - PORT_MARGIN_MS || atMs > last.ms + PORT_MARGIN_MS) return null;
  if (atMs <= first.ms) return fixFrom(imo, atMs, first.point, null, 0);
  for (let i = 1; i < stops.length; i++) {
    const a = stops[i - 1]!;
    const b = stops[i]!;
    if (atMs > b.ms) continue;
    if (a.type === 'DEPA' && b.type === 'ARRI' && b.ms > a.ms) {
      const f = (atMs - a.ms) / (b.ms - a.ms);
      const { point, heading } = along(a.point, b.point, f);
      return fixFrom(imo, atMs, point, heading, distanceNm(a.point, b.point) / ((b.ms - a.ms) / HOUR));
    }
    return fixFrom(imo, atMs, a.point, null, 0);
  }
  return fixFrom(imo, atMs, last.point, null, 0);
}

/**
 * The vessel's position at `atMs` in the served journeys, newest served first (the fictional fleet
 * is small, so two journeys may use one vessel; the one served last wins), or null if none has it.
 */
export function vesselPosition(imo: string, atMs: number, served: readonly Shipment[]): Fix | null {
  for (let i = served.length - 1; i >= 0; i--) {
    const stops = stopsOf(served[i]!).get(imo);
    const fix = stops ? positionIn(imo, stops, atMs) : null;
    if (fix) return fix;
  }
  return null;
}

/** Fixes fall on whole seconds, as AIS reports them (and ISO 8601 timestamps carry them). */
const toSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

function instant(raw: string | null, fallback: number): number | null {
  if (raw === null || raw === '') return fallback;
  const ms = Date.parse(raw);
  return Number.isNaN(ms) ? null : ms;
}

/**
 * GET /ais/positions/latest?imo=&at= and GET /ais/positions?imo=&from=&to=&step_minutes=.
 * Times after the simulated now are cut to it: the feed never reports the future.
 */
export function answerAis(
  path: string,
  params: URLSearchParams,
  nowMs: number,
  served: () => readonly Shipment[],
): Reply | undefined {
  if (path !== '/ais/positions' && path !== '/ais/positions/latest') return undefined;
  const imo = params.get('imo') ?? '';
  if (!/^\d{7}$/.test(imo)) return json(400, { error: 'imo must be a 7-digit IMO number' });
  if (path === '/ais/positions/latest') {
    const at = instant(params.get('at'), nowMs);
    if (at === null) return json(400, { error: 'at must be an ISO 8601 instant' });
    const fix = vesselPosition(imo, toSecond(Math.min(at, nowMs)), served());
    return fix ? json(200, { data: fix }) : json(404, { error: `no position for IMO ${imo}` });
  }
  const to = instant(params.get('to'), nowMs);
  const from = instant(params.get('from'), nowMs - 24 * HOUR);
  if (from === null || to === null) return json(400, { error: 'from and to must be ISO 8601 instants' });
  const step = Number(params.get('step_minutes') ?? 60);
  if (!Number.isInteger(step) || step < 1)
    return json(400, { error: 'step_minutes must be a positive integer' });
  const end = Math.min(to, nowMs);
  const stepMs = toSecond(Math.max(step * 60_000, Math.ceil((end - from) / MAX_TRACK_POINTS)) + 999);
  const list = served();
  const data: Fix[] = [];
  for (let t = toSecond(from); t <= end; t += stepMs) {
    const fix = vesselPosition(imo, t, list);
    if (fix) data.push(fix);
  }
  return json(200, { data });
}
