import { LRUCache } from 'lru-cache';
import type { Port } from '../reference/data.ts';
import { type SeaRoute, seaRoute } from './sea-route.ts';

// Sea routes between ports of the reference data, cached per ordered pair: a deployment shows a
// few hundred lanes again and again, and one search costs ~1-10 ms. Bounded: 500 routes of a few
// hundred points are a few MB at most.

// Boxed: the cache holds no null, and a pair with no route is worth remembering too.
const cache = new LRUCache<string, { route: SeaRoute | null }>({ max: 500 });

/** The sea route between two ports, or null when either has no coordinates. */
export function portRoute(from: Port, to: Port): SeaRoute | null {
  const key = `${from.locode}>${to.locode}`;
  const hit = cache.get(key);
  if (hit) return hit.route;
  const route =
    from.latitude === null || from.longitude === null || to.latitude === null || to.longitude === null
      ? null
      : seaRoute([from.longitude, from.latitude], [to.longitude, to.latitude]);
  cache.set(key, { route });
  return route;
}

export function portRouteCacheSize(): number {
  return cache.size;
}
