// Spherical helpers in nautical miles and degrees. Coordinates are [longitude, latitude] as in
// GeoJSON. Sea-lane segments are drawn (and measured) straight in longitude/latitude, as map
// libraries draw a GeoJSON LineString, so what a client sees is what was checked against land.

export type LonLat = [number, number];

/** Mean Earth radius in nautical miles (6371.0088 km / 1.852). */
const EARTH_RADIUS_NM = 3440.065;
const RAD = Math.PI / 180;

export function haversineNm(a: LonLat, b: LonLat): number {
  const dLat = (b[1] - a[1]) * RAD;
  const dLon = (b[0] - a[0]) * RAD;
  const s = Math.sin(dLat / 2) ** 2 + Math.cos(a[1] * RAD) * Math.cos(b[1] * RAD) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_NM * Math.asin(Math.min(1, Math.sqrt(s)));
}

/** Initial true bearing from a to b, degrees in [0, 360). */
export function bearingDeg(a: LonLat, b: LonLat): number {
  const f1 = a[1] * RAD;
  const f2 = b[1] * RAD;
  const dl = (b[0] - a[0]) * RAD;
  const y = Math.sin(dl) * Math.cos(f2);
  const x = Math.cos(f1) * Math.sin(f2) - Math.sin(f1) * Math.cos(f2) * Math.cos(dl);
  return (Math.atan2(y, x) / RAD + 360) % 360;
}

/** Longitude folded into [-180, 180]. */
export function wrapLon(lon: number): number {
  if (lon >= -180 && lon <= 180) return lon;
  return ((((lon + 180) % 360) + 360) % 360) - 180;
}

/** b's longitude shifted by ±360 so the step a -> b is the short way round (|Δlon| ≤ 180). */
export function unwrapTo(a: LonLat, b: LonLat): LonLat {
  const d = b[0] - a[0];
  if (d > 180) return [b[0] - 360, b[1]];
  if (d < -180) return [b[0] + 360, b[1]];
  return b;
}

/** The point a fraction t of the way from a to b, straight in lon/lat, the short way round. */
export function lerp(a: LonLat, b: LonLat, t: number): LonLat {
  const u = unwrapTo(a, b);
  return [wrapLon(a[0] + (u[0] - a[0]) * t), a[1] + (u[1] - a[1]) * t];
}

/**
 * The points strictly between a and b that split the lon/lat-straight step into pieces of at most
 * `maxDeg` degrees (none when the step is already short enough).
 */
export function densify(a: LonLat, b: LonLat, maxDeg: number): LonLat[] {
  const u = unwrapTo(a, b);
  const span = Math.max(Math.abs(u[0] - a[0]), Math.abs(u[1] - a[1]));
  const n = Math.ceil(span / maxDeg);
  const out: LonLat[] = [];
  for (let i = 1; i < n; i++) out.push(lerp(a, b, i / n));
  return out;
}

/** Length of the lon/lat-straight step a -> b in nm (measured over ≤ 1° pieces). */
export function stepLengthNm(a: LonLat, b: LonLat): number {
  let prev = a;
  let total = 0;
  for (const p of densify(a, b, 1)) {
    total += haversineNm(prev, p);
    prev = p;
  }
  return total + haversineNm(prev, b);
}

/** Coordinates rounded to 6 decimals (~0.1 m): smaller answers, no false precision. */
export function round6(p: LonLat): LonLat {
  return [Math.round(p[0] * 1e6) / 1e6, Math.round(p[1] * 1e6) / 1e6];
}
