import { densify, haversineNm, type LonLat, round6 } from './geo.ts';
import { MinHeap } from './heap.ts';
import { type LaneNetwork, laneNetwork, nodeAt, PASSAGE_NAMES, type Passage } from './network.ts';

// Shortest sea path between two points over the lane network: snap each end to its nearest lane
// node, A* over the graph (great-circle distance to the goal is a lower bound of every lane path,
// as lanes are drawn straight in lon/lat and never shorter than the great circle), then the
// vertices densified to at most MAX_STEP_DEG so positions can be read off the line by distance.

export interface SeaRoute {
  /** [lon, lat] from origin to destination, longitudes in [-180, 180]. */
  coordinates: LonLat[];
  /** Distance sailed from the origin at each coordinate, nm (same length as coordinates). */
  cumulativeNm: number[];
  distanceNm: number;
}

export interface RouteOptions {
  /** Passages the route must not use (for example a closed canal). */
  avoid?: readonly Passage[];
}

/** Longest straight step in the returned geometry, degrees. */
export const MAX_STEP_DEG = 1;

/** Nearest node of the connected network to a point (brute force: ~5.6k nodes, ~0.1 ms). */
export function snap(net: LaneNetwork, p: LonLat): number {
  let best = -1;
  let bestD = Number.POSITIVE_INFINITY;
  for (const i of net.snappable) {
    const d = haversineNm(p, nodeAt(net, i));
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best;
}

/** Node ids of the shortest path from s to t, or null when the avoided passages cut them apart. */
export function shortestPath(
  net: LaneNetwork,
  s: number,
  t: number,
  avoid: readonly Passage[] = [],
): number[] | null {
  const banned = new Set(avoid.map((p) => PASSAGE_NAMES.indexOf(p)));
  const goal = nodeAt(net, t);
  const dist = new Float64Array(net.nodeCount).fill(Number.POSITIVE_INFINITY);
  const prev = new Int32Array(net.nodeCount).fill(-1);
  const done = new Uint8Array(net.nodeCount);
  const heap = new MinHeap();
  dist[s] = 0;
  heap.push(s, haversineNm(nodeAt(net, s), goal));
  while (heap.size > 0) {
    const x = heap.pop();
    if (done[x]) continue;
    if (x === t) break;
    done[x] = 1;
    for (let e = net.offsets[x]!; e < net.offsets[x + 1]!; e++) {
      if (banned.size > 0 && banned.has(net.passages[e]!)) continue;
      const y = net.targets[e]!;
      const d = dist[x]! + net.weights[e]!;
      if (d < dist[y]!) {
        dist[y] = d;
        prev[y] = x;
        heap.push(y, d + haversineNm(nodeAt(net, y), goal));
      }
    }
  }
  if (!Number.isFinite(dist[t]!)) return null;
  const path: number[] = [];
  for (let x = t; x !== -1; x = prev[x]!) path.push(x);
  return path.reverse();
}

/** The sea route from `from` to `to`, or null when no path exists under the options. */
export function seaRoute(
  from: LonLat,
  to: LonLat,
  options: RouteOptions = {},
  net = laneNetwork(),
): SeaRoute | null {
  const s = snap(net, from);
  const t = snap(net, to);
  const nodes = shortestPath(net, s, t, options.avoid);
  if (!nodes) return null;
  const vertices: LonLat[] = [from, ...nodes.map((i) => nodeAt(net, i)), to];
  return fromVertices(vertices);
}

/** Densified geometry with cumulative distances from a vertex list (duplicates dropped). */
export function fromVertices(vertices: LonLat[]): SeaRoute {
  const coordinates: LonLat[] = [];
  const cumulativeNm: number[] = [];
  let total = 0;
  let prev: LonLat | undefined;
  const add = (p: LonLat) => {
    const q = round6(p);
    if (prev && q[0] === prev[0] && q[1] === prev[1]) return;
    if (prev) total += haversineNm(prev, q);
    coordinates.push(q);
    cumulativeNm.push(total);
    prev = q;
  };
  for (const v of vertices) {
    if (prev) for (const p of densify(prev, v, MAX_STEP_DEG)) add(p);
    add(v);
  }
  if (coordinates.length === 1) {
    coordinates.push(coordinates[0]!);
    cumulativeNm.push(0);
  }
  return { coordinates, cumulativeNm, distanceNm: total };
}
