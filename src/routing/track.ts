import { bearingDeg, type LonLat, lerp, round6 } from './geo.ts';
import type { SeaRoute } from './sea-route.ts';

// Reading a sea route by distance and by time. A vessel between two calls is placed on the route
// at constant speed between its departure and its (actual or estimated) arrival: the fraction of
// the voyage time elapsed is the fraction of the route distance sailed. Carriers report nothing
// finer; an AIS provider (ais.ts) replaces the estimate where real fixes exist.

export interface RoutePoint {
  point: LonLat;
  /** True course at that point, degrees [0, 360). */
  heading: number;
  /** Index of the route coordinate at or before the point. */
  index: number;
}

/** The point `nm` nautical miles along the route (clamped to its ends). */
export function pointAtNm(route: SeaRoute, nm: number): RoutePoint {
  const c = route.coordinates;
  const cum = route.cumulativeNm;
  const d = Math.max(0, Math.min(route.distanceNm, nm));
  // Binary search for the last coordinate with cumulative distance <= d.
  let lo = 0;
  let hi = c.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (cum[mid]! <= d) lo = mid;
    else hi = mid - 1;
  }
  const i = Math.min(lo, c.length - 2);
  const a = c[i]!;
  const b = c[i + 1]!;
  const span = cum[i + 1]! - cum[i]!;
  const t = span > 0 ? (d - cum[i]!) / span : 0;
  return { point: round6(lerp(a, b, Math.min(1, t))), heading: Math.round(bearingDeg(a, b)), index: i };
}

/** The part of the route between two distances, as coordinates (at least two). */
export function sliceNm(route: SeaRoute, fromNm: number, toNm: number): LonLat[] {
  const start = pointAtNm(route, fromNm);
  const end = pointAtNm(route, toNm);
  const out: LonLat[] = [start.point];
  for (let i = start.index + 1; i <= end.index; i++) {
    const p = route.coordinates[i]!;
    const last = out[out.length - 1]!;
    if (p[0] !== last[0] || p[1] !== last[1]) out.push(p);
  }
  const last = out[out.length - 1]!;
  if (end.point[0] !== last[0] || end.point[1] !== last[1] || out.length === 1) out.push(end.point);
  return out;
}

export interface Passage {
  departedAt: Date;
  arrivesAt: Date;
}

/** Fraction of the voyage done at `now` (0 before departure, 1 at or after arrival). */
export function fractionAt(p: Passage, now: Date): number {
  const span = p.arrivesAt.getTime() - p.departedAt.getTime();
  if (span <= 0) return now >= p.arrivesAt ? 1 : 0;
  return Math.max(0, Math.min(1, (now.getTime() - p.departedAt.getTime()) / span));
}

/** Speed over ground implied by the schedule, knots (null when the times allow none). */
export function impliedKnots(route: SeaRoute, p: Passage): number | null {
  const hours = (p.arrivesAt.getTime() - p.departedAt.getTime()) / 3_600_000;
  return hours > 0 ? Math.round((route.distanceNm / hours) * 10) / 10 : null;
}

export interface TimedPosition {
  point: LonLat;
  heading: number;
  at: Date;
}

/**
 * Positions along the route at fixed time steps from `from` to the arrival, at the schedule's
 * constant speed. The last position is the arrival itself. At most `maxPoints` positions: the
 * step grows when the voyage is long (documented in docs/routing.md).
 */
export function positionsBetween(
  route: SeaRoute,
  p: Passage,
  from: Date,
  stepMs: number,
  maxPoints: number,
): TimedPosition[] {
  const end = p.arrivesAt.getTime();
  const start = Math.min(Math.max(from.getTime(), p.departedAt.getTime()), end);
  // A whole multiple of stepMs, so the spacing is a round figure (one minute, or N minutes).
  const step = stepMs * Math.max(1, Math.ceil((end - start) / Math.max(1, maxPoints - 1) / stepMs));
  const out: TimedPosition[] = [];
  const at = (ms: number) => {
    const r = pointAtNm(route, fractionAt(p, new Date(ms)) * route.distanceNm);
    out.push({ point: r.point, heading: r.heading, at: new Date(ms) });
  };
  for (let t = start; t < end && out.length < maxPoints - 1; t += step) at(t);
  at(end);
  return out;
}
