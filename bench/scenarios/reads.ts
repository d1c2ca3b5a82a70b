import { seed } from '../../src/cli/seed.ts';
import { type Api, type Ctx, httpScenario, newAccount } from '../lib/context.ts';
import type { ScenarioResult } from '../lib/report.ts';

// The read scenarios: one shipment with its 3 containers, one container's 40 transport events,
// and the first page of shipments, on a small account and on an account with 100,000 shipments.
// Each runs as clients use it (repeated reads are answered from the response cache, kept fresh by
// the change feed) and again with `Cache-Control: no-cache`, which makes every request read the
// database: the "database path" diagnostics show what a cold or constantly changing account gets.

/** Headers that make the API answer from the database instead of its response cache. */
export const NO_CACHE = { 'cache-control': 'no-cache' };

export interface SmallSet {
  accountId: string;
  key: string;
  shipmentId: string;
  containerId: string;
  transportEventIds: string[];
}

export const SMALL_SHIPMENTS = 100;

/** 100 shipments x 3 containers x 40 events, and the probe shipment and container. */
export async function prepareSmall(ctx: Ctx): Promise<SmallSet> {
  const { accountId, key } = await newAccount(ctx.db, 'bench-small');
  await seed(ctx.db, {
    accountId,
    shipments: SMALL_SHIPMENTS,
    containersPerShipment: 3,
    eventsPerContainer: 40,
    refresh: false,
  });
  const s = await ctx.db
    .selectFrom('shipments')
    .select('id')
    .where('account_id', '=', accountId)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const c = await ctx.db
    .selectFrom('containers')
    .select('id')
    .where('shipment_id', '=', s.id)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  const events = await ctx.db
    .selectFrom('transport_events')
    .select('id')
    .where('container_id', '=', c.id)
    .execute();
  const containers = await ctx.db
    .selectFrom('containers')
    .select('id')
    .where('shipment_id', '=', s.id)
    .execute();
  if (containers.length !== 3 || events.length !== 40)
    throw new Error(`small data set: ${containers.length} containers, ${events.length} events`);
  return { accountId, key, shipmentId: s.id, containerId: c.id, transportEventIds: events.map((e) => e.id) };
}

export async function readScenarios(
  ctx: Ctx,
  api: Api,
  small: SmallSet,
  label: 'small' | 'large',
): Promise<{
  shipment: ScenarioResult;
  events: ScenarioResult;
  list?: ScenarioResult;
  listDb?: ScenarioResult;
}> {
  const suffix = label === 'large' ? ' — large data set' : '';
  const shipment = await httpScenario(ctx, {
    id: `get_shipment${label === 'large' ? '_large' : ''}`,
    name: `GET /v2/shipments/{id}?include=containers (3 containers)${suffix}`,
    url: api.url,
    path: `/v2/shipments/${small.shipmentId}?include=containers`,
    key: small.key,
    pid: api.proc.pid,
    goal: { minRatio: 0.2, maxP99Ms: 25 },
  });
  const events = await httpScenario(ctx, {
    id: `transport_events${label === 'large' ? '_large' : ''}`,
    name: `GET /v2/containers/{id}/transport_events?include=location,vessel (40 events)${suffix}`,
    url: api.url,
    path: `/v2/containers/${small.containerId}/transport_events?include=location,vessel`,
    key: small.key,
    pid: api.proc.pid,
    goal: { minRatio: 0.12 },
  });
  if (label === 'large') return { shipment, events };
  const floor = await httpScenario(ctx, {
    id: 'auth_floor',
    name: 'Diagnostic: GET /v2/webhooks/ips (API key check and rate limit only, no query)',
    url: api.url,
    path: '/v2/webhooks/ips',
    key: small.key,
    pid: api.proc.pid,
    notes: 'the per-request floor of every authenticated endpoint',
  });
  void floor;
  const list = await httpScenario(ctx, {
    id: 'list_small',
    name: `GET /v2/shipments?page[size]=30 (account with ${SMALL_SHIPMENTS} shipments)`,
    url: api.url,
    path: '/v2/shipments?page[size]=30',
    key: small.key,
    pid: api.proc.pid,
    notes: 'reference for the 100,000-shipment list',
  });
  return { shipment, events, list };
}

export interface LargeSet {
  accountId: string;
  key: string;
  shipments: number;
  events: number;
  seedSeconds: number;
  rowsPerSecond: number;
}

/**
 * The account with 100,000 shipments (3 containers each). Default mode: no transport events;
 * large mode: the full set (34 events per container, 10.2 million events).
 */
export async function prepareLarge(ctx: Ctx): Promise<LargeSet> {
  const { accountId, key } = await newAccount(ctx.db, 'bench-large');
  const eventsPerContainer = ctx.cfg.large ? ctx.cfg.largeEventsPerContainer : 0;
  ctx.log(
    `seeding ${ctx.cfg.listShipments.toLocaleString('en')} shipments x 3 containers x ${eventsPerContainer} events`,
  );
  let last = 0;
  const r = await seed(
    ctx.db,
    // Not due for refresh: the worker scenarios later in the run must not pick them up.
    {
      accountId,
      shipments: ctx.cfg.listShipments,
      containersPerShipment: 3,
      eventsPerContainer,
      refresh: false,
    },
    (p) => {
      if (p.elapsedMs - last < 10_000 && p.shipments !== p.totalShipments) return;
      last = p.elapsedMs;
      ctx.log(
        `  ${Math.round((p.rows / p.totalRows) * 100)}%: ${p.rows.toLocaleString('en')} rows, ${Math.round(p.rowsPerSecond).toLocaleString('en')} rows/s, ${Math.round(p.etaMs / 1000)} s left`,
      );
    },
  );
  return {
    accountId,
    key,
    shipments: r.shipments,
    events: r.events,
    seedSeconds: r.elapsedMs / 1000,
    rowsPerSecond: r.rowsPerSecond,
  };
}

export async function listLarge(ctx: Ctx, api: Api, large: LargeSet): Promise<ScenarioResult> {
  return httpScenario(ctx, {
    id: 'list_100k',
    name: `GET /v2/shipments?page[size]=30 (account with ${large.shipments.toLocaleString('en')} shipments)`,
    url: api.url,
    path: '/v2/shipments?page[size]=30',
    key: large.key,
    pid: api.proc.pid,
    goal: { minRatio: 0.1 },
  });
}

/**
 * The read scenarios again with `Cache-Control: no-cache`: every request reads PostgreSQL. Run
 * after the goal scenarios and their memory reading, so each set is measured on its own.
 */
export async function databasePathScenarios(
  ctx: Ctx,
  api: Api,
  small: SmallSet,
  large: LargeSet,
): Promise<{ listSmall: ScenarioResult; listLarge: ScenarioResult }> {
  const db = (id: string, name: string, path: string, key: string) =>
    httpScenario(ctx, { id, name, url: api.url, path, key, headers: NO_CACHE, pid: api.proc.pid });
  await db(
    'get_shipment_db',
    'Diagnostic: GET /v2/shipments/{id}?include=containers, database path (no-cache)',
    `/v2/shipments/${small.shipmentId}?include=containers`,
    small.key,
  );
  await db(
    'transport_events_db',
    'Diagnostic: GET /v2/containers/{id}/transport_events?include=location,vessel, database path (no-cache)',
    `/v2/containers/${small.containerId}/transport_events?include=location,vessel`,
    small.key,
  );
  const listSmall = await db(
    'list_small_db',
    `Diagnostic: GET /v2/shipments?page[size]=30 (${SMALL_SHIPMENTS} shipments), database path (no-cache)`,
    '/v2/shipments?page[size]=30',
    small.key,
  );
  const listLarge = await db(
    'list_100k_db',
    `Diagnostic: GET /v2/shipments?page[size]=30 (${large.shipments.toLocaleString('en')} shipments), database path (no-cache)`,
    '/v2/shipments?page[size]=30',
    large.key,
  );
  return { listSmall, listLarge };
}

/** large/small req/s of the same endpoint: "within 1.5 times" means at least 1/1.5. */
export function compare(
  ctx: Ctx,
  id: string,
  name: string,
  small: ScenarioResult,
  large: ScenarioResult,
): void {
  const ratio = small.value && large.value ? large.value / small.value : null;
  ctx.results.push({
    id,
    name,
    value: ratio,
    unit: 'ratio',
    p50Ms: null,
    p99Ms: null,
    goal: 'large/small req/s ≥ 0.67 (within 1.5×)',
    goalMet: ratio !== null && ratio >= 1 / 1.5,
    notes: `p50 ${small.p50Ms} → ${large.p50Ms} ms`,
  });
}
