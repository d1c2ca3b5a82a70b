import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import { haversineNm, type LonLat } from '../../src/routing/geo.ts';

// Natural Earth 1:50m land polygons (world-atlas, ISC; Natural Earth is public domain) for
// "is this point at sea" checks. Rings are kept with their bounding boxes so a point is tested
// only against the few rings whose box holds it. Even-odd ray casting: land rings and their
// holes (lakes are not in the land layer; holes are seas like the Caspian edge cases) alternate.

interface Ring {
  box: [number, number, number, number];
  pts: number[][];
}

let rings: Ring[] | undefined;

function load(): Ring[] {
  if (rings) return rings;
  const path = createRequire(import.meta.url).resolve('world-atlas/land-50m.json');
  const topo = JSON.parse(readFileSync(path, 'utf8'));
  const land = feature(topo, topo.objects.land) as any;
  const out: Ring[] = [];
  const polys: number[][][][] = [];
  for (const f of land.features ?? [land]) {
    const g = f.geometry;
    if (g.type === 'Polygon') polys.push(g.coordinates);
    else if (g.type === 'MultiPolygon') polys.push(...g.coordinates);
  }
  for (const poly of polys) {
    for (const pts of poly) {
      let w = 180;
      let s = 90;
      let e = -180;
      let n = -90;
      for (const [x, y] of pts) {
        w = Math.min(w, x!);
        e = Math.max(e, x!);
        s = Math.min(s, y!);
        n = Math.max(n, y!);
      }
      out.push({ box: [w, s, e, n], pts });
    }
  }
  rings = out;
  return out;
}

export function onLand(p: LonLat): boolean {
  const [x, y] = p;
  let inside = false;
  for (const r of load()) {
    if (x < r.box[0] || x > r.box[2] || y < r.box[1] || y > r.box[3]) continue;
    const pts = r.pts;
    for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
      const xi = pts[i]![0]!;
      const yi = pts[i]![1]!;
      const xj = pts[j]![0]!;
      const yj = pts[j]![1]!;
      if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
    }
  }
  return inside;
}

/** At sea, or within `coastKm` of it: one of eight points around p at that distance is at sea. */
export function atOrNearSea(p: LonLat, coastKm: number): boolean {
  if (!onLand(p)) return true;
  const dLat = coastKm / 111.2;
  const dLon = dLat / Math.max(0.05, Math.cos((p[1] * Math.PI) / 180));
  for (let k = 0; k < 8; k++) {
    const a = (k * Math.PI) / 4;
    if (!onLand([p[0] + dLon * Math.cos(a), p[1] + dLat * Math.sin(a)])) return true;
  }
  return false;
}

/** Points every `stepNm` along a polyline (drawn straight in lon/lat, as the route is). */
export function samplePolyline(coords: LonLat[], stepNm: number): LonLat[] {
  const out: LonLat[] = [];
  for (let i = 1; i < coords.length; i++) {
    const a = coords[i - 1]!;
    let b = coords[i]!;
    if (b[0] - a[0] > 180) b = [b[0] - 360, b[1]];
    if (b[0] - a[0] < -180) b = [b[0] + 360, b[1]];
    const n = Math.max(1, Math.ceil(haversineNm(a, b) / stepNm));
    for (let k = 0; k < n; k++) {
      const t = k / n;
      let x = a[0] + (b[0] - a[0]) * t;
      if (x > 180) x -= 360;
      if (x < -180) x += 360;
      out.push([x, a[1] + (b[1] - a[1]) * t]);
    }
  }
  out.push(coords[coords.length - 1]!);
  return out;
}
