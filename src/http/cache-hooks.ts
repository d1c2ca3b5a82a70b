import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import { wantsCsv } from './csv.ts';
import type { ReadToken, ResponseCache } from './response-cache.ts';

// Wires the response cache (response-cache.ts) into the request cycle. Only the read endpoints
// whose data the change feed covers are cached (migrations/0008 and 0037 list the tables); answers
// are keyed by account and the exact request URL, and only 200s are kept. Each answer is tagged
// with what it depends on (`tagsOf`), so a change drops only the answers that show it. A write
// request of an account drops, in this process and before its answer goes out, what it touched
// (the ids in its URL and answer, and the account's lists; the whole account for writes whose reach
// is wider), so a client always reads its own writes here; other processes learn of it from the
// feed. A request with `Cache-Control: no-cache` (or no-store) is answered from the database; its
// answer still refreshes the entry.

const CACHED_ROUTES = new Set([
  '/v2/tracking_requests',
  '/v2/tracking_requests/:id',
  '/v2/shipments',
  '/v2/shipments/:id',
  '/v2/containers',
  '/v2/containers/:id',
  '/v2/containers/:id/transport_events',
  '/v2/containers/:id/raw_events',
  '/v2/transport_events/:id',
  // Routing (src/maps/): derived from the same rows; a vessel's estimated position moves with
  // time, so a cached answer is at most RESPONSE_CACHE_TTL_MS old.
  '/v2/containers/:id/map_geojson',
  '/v2/containers/:id/route',
  '/v2/vessels/:id/future_positions',
  '/v2/vessels/:id/future_positions_with_coordinates',
]);

/**
 * Tags of answers that depend on more than the resources their document names: a list on its
 * account's collection (rows enter, leave and reorder); raw events are stored per shipment (no
 * container id to name), routes and maps read the shipment's ports and events without naming them.
 * The feed's tables map to these collections in cache-subscriber.ts.
 */
const COLLECTION_TAGS: Record<string, readonly string[]> = {
  '/v2/tracking_requests': ['list:tracking_requests'],
  '/v2/shipments': ['list:shipments'],
  '/v2/containers': ['list:containers'],
  '/v2/containers/:id/raw_events': ['list:raw_events'],
  '/v2/containers/:id/map_geojson': ['list:containers'],
  '/v2/containers/:id/route': ['list:containers'],
};
const LISTS = ['list:tracking_requests', 'list:shipments', 'list:containers', 'list:raw_events'];

/** Writes whose reach the ids of their URL and answer describe; any other write drops the account. */
const PRECISE_WRITES = /^\/v2\/(tracking_requests|shipments|containers)(\/|$)/;

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Every resource id the document shows (data, relationships, includes, links), lower-cased. */
export function idsIn(body: string): string[] {
  const ids = new Set<string>();
  for (const m of body.matchAll(UUID)) ids.add(m[0].toLowerCase());
  return [...ids];
}

/**
 * The resources a read document shows that the change feed names (migrations/0037): shipments,
 * containers and tracking requests, found as resource identifiers in either member order. Transport
 * events are left out on purpose: a document shows them only through their container (whose
 * relationship lists them) or under a route whose :id is theirs or their container's, and the feed
 * names an event's container and shipment with it. A shipment with three containers shows ~100
 * event ids; tagging each cost more than the cache saved on a miss.
 */
const IDENTIFIER =
  /"id"\s*:\s*"([0-9a-f-]{36})"\s*,\s*"type"\s*:\s*"(?:shipment|container|tracking_request)"|"type"\s*:\s*"(?:shipment|container|tracking_request)"\s*,\s*"id"\s*:\s*"([0-9a-f-]{36})"/g;

function shownIds(body: string): Set<string> {
  const ids = new Set<string>();
  for (const m of body.matchAll(IDENTIFIER)) ids.add((m[1] ?? m[2])!.toLowerCase());
  return ids;
}

/** What a cached answer of `route` depends on: its collection (lists), else the resources it shows. */
export function tagsOf(route: string, params: unknown, body: string | Buffer): string[] {
  const collection = COLLECTION_TAGS[route];
  if (collection && !route.includes(':id')) return [...collection];
  const tags = shownIds(typeof body === 'string' ? body : body.toString());
  const id = (params as { id?: unknown } | undefined)?.id;
  if (typeof id === 'string') tags.add(id.toLowerCase());
  return collection ? [...tags, ...collection] : [...tags];
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Cache state taken before the handler read (undefined: not cacheable). */
    cacheToken: ReadToken | undefined;
  }
}

/** Register after the auth hook: it needs request.accountId. */
export function registerResponseCache(app: FastifyInstance, cache: ResponseCache): void {
  app.decorateRequest('cacheToken', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const account = request.accountId;
    if (!account || request.method !== 'GET' || !CACHED_ROUTES.has(request.routeOptions.url ?? '')) return;
    // A CSV export is streamed and never kept; it must not be answered with the cached JSON.
    if (wantsCsv(request)) return;
    const control = request.headers['cache-control'];
    const bypass = control !== undefined && /no-cache|no-store/i.test(control);
    const hit = bypass ? undefined : cache.get(account, request.url);
    if (hit) {
      reply.header('x-cache', 'hit').type(hit.contentType).send(hit.body);
      return reply;
    }
    request.cacheToken = cache.begin(account);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const account = request.accountId;
    if (!account) return payload;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      if (PRECISE_WRITES.test(request.url)) {
        const params = Object.values((request.params ?? {}) as Record<string, unknown>);
        const ids = typeof payload === 'string' ? idsIn(payload) : [];
        for (const p of params) if (typeof p === 'string') ids.push(p.toLowerCase());
        cache.invalidateTags(account, [...ids, ...LISTS]);
      } else {
        cache.invalidate(account);
      }
    } else if (request.cacheToken !== undefined) {
      reply.header('x-cache', 'miss');
      // admits() first: finding the tags of a 15 KB answer costs more than the look-up saves.
      if (
        reply.statusCode === 200 &&
        (typeof payload === 'string' || Buffer.isBuffer(payload)) &&
        cache.admits(account, request.url, payload)
      ) {
        const contentType = String(reply.getHeader('content-type') ?? 'application/vnd.api+json');
        const tags = tagsOf(request.routeOptions.url ?? '', request.params, payload);
        // A Buffer answer is kept as text: answers kept for minutes among the short-lived Buffers
        // of every other answer held ~40 MB more of the allocator's memory in RSS than the same
        // answers kept as strings (docs/benchmarks.md); and the Buffer is freed once sent
        // (json-text.ts).
        const body = Buffer.isBuffer(payload) ? payload.toString() : payload;
        cache.set(account, request.url, request.cacheToken, { body, contentType }, tags);
      }
    }
    return payload;
  });
}

/** Response-cache gauges and counters on the process's /metrics (read at scrape time). */
export function registerCacheMetrics(registry: Registry, cache: ResponseCache): void {
  if (registry.getSingleMetric('response_cache_entries')) return; // one app per registry
  new Gauge({
    name: 'response_cache_entries',
    help: 'Responses held in the response cache',
    registers: [registry],
    collect() {
      this.set(cache.stats().entries);
    },
  });
  new Gauge({
    name: 'response_cache_bytes',
    help: 'Memory held by the response cache (estimated, UTF-16)',
    registers: [registry],
    collect() {
      this.set(cache.stats().bytes);
    },
  });
  new Counter({
    name: 'response_cache_lookups_total',
    help: 'Response cache look-ups by result (hit, miss)',
    labelNames: ['result'] as const,
    registers: [registry],
    collect() {
      const s = cache.stats();
      this.reset();
      this.inc({ result: 'hit' }, s.hits);
      this.inc({ result: 'miss' }, s.misses);
    },
  });
}
