import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ResponseCache } from './response-cache.ts';

// Wires the response cache (response-cache.ts) into the request cycle. Only the read endpoints
// whose data the change feed covers are cached (migrations/0008 lists the tables); answers are
// keyed by account and the exact request URL, and only 200s are kept. Any write request of an
// account empties that account's entries in this process before its answer goes out, so a client
// always reads its own writes here; other processes learn of it from the feed. A request with
// `Cache-Control: no-cache` (or no-store) is answered from the database; its answer still refreshes
// the entry.

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

declare module 'fastify' {
  interface FastifyRequest {
    /** Cache generation taken before the handler read (undefined: not cacheable). */
    cacheGeneration: number | undefined;
  }
}

/** Register after the auth hook: it needs request.accountId. */
export function registerResponseCache(app: FastifyInstance, cache: ResponseCache): void {
  app.decorateRequest('cacheGeneration', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const account = request.accountId;
    if (!account || request.method !== 'GET' || !CACHED_ROUTES.has(request.routeOptions.url ?? '')) return;
    const control = request.headers['cache-control'];
    const bypass = control !== undefined && /no-cache|no-store/i.test(control);
    const hit = bypass ? undefined : cache.get(account, request.url);
    if (hit) {
      reply.header('x-cache', 'hit').type(hit.contentType).send(hit.body);
      return reply;
    }
    request.cacheGeneration = cache.generation(account);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const account = request.accountId;
    if (!account) return payload;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      cache.invalidate(account);
    } else if (request.cacheGeneration !== undefined) {
      reply.header('x-cache', 'miss');
      if (reply.statusCode === 200 && typeof payload === 'string') {
        const contentType = String(reply.getHeader('content-type') ?? 'application/vnd.api+json');
        cache.set(account, request.url, request.cacheGeneration, { body: payload, contentType });
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
