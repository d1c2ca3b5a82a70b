import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { authenticateAndCharge } from '../../src/accounts/service.ts';
import type { DB } from '../../src/db/schema.ts';
import { claimDueShipments } from '../../src/engine/claims.ts';
import { loadStoredState } from '../../src/engine/store.ts';
import { vesselsByIds } from '../../src/reference/vessels.ts';
import {
  containerIdsByShipment,
  containersByShipmentIds,
  eventSummaries,
  findContainer,
  listTransportEvents,
} from '../../src/shipments/containers/queries.ts';
import { findShipment, listShipments } from '../../src/shipments/queries.ts';
import { claimDueNotifications } from '../../src/webhooks/delivery/claim.ts';

// EXPLAIN (ANALYZE, BUFFERS) of the queries the hot endpoints send, captured from the product's
// own query functions (a Kysely logger records the SQL and parameters), on the run's data set.

export interface Plan {
  endpoint: string;
  sql: string;
  plan: string;
}

interface Targets {
  key: string;
  accountId: string;
  shipmentId: string;
  containerId: string;
  largeAccountId: string;
}

export async function explainHotQueries(url: string, t: Targets): Promise<Plan[]> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  // EXPLAIN ANALYZE runs the statement: on a connection of its own, inside a rolled-back transaction.
  const explain = new pg.Client({ connectionString: url });
  await explain.connect();
  const captured: Array<{ sql: string; params: readonly unknown[] }> = [];
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      if (e.level === 'query') captured.push({ sql: e.query.sql, params: e.query.parameters });
    },
  });
  const plans: Plan[] = [];
  const capture = async (endpoint: string, run: () => Promise<unknown>) => {
    captured.length = 0;
    await run();
    const queries = [...captured];
    for (const q of queries) {
      await explain.query('begin');
      const r = await explain.query(`explain (analyze, buffers) ${q.sql}`, q.params as unknown[]);
      await explain.query('rollback');
      plans.push({
        endpoint,
        sql: q.sql,
        plan: r.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n'),
      });
    }
  };
  try {
    const page = { number: 1, size: 30 };
    await capture('a request whose key or rate-limit batch is not in memory: key check + reservation', () =>
      authenticateAndCharge(db, t.key, 'default', 1e9, 60, 100),
    );
    await capture('GET /v2/shipments/{id}?include=containers (response cache miss)', async () => {
      await findShipment(db, t.accountId, t.shipmentId);
      const rows = await containersByShipmentIds(db, t.accountId, [t.shipmentId]);
      await eventSummaries(
        db,
        t.accountId,
        rows.map((r) => r.id),
      );
    });
    await capture('GET /v2/containers/{id}/transport_events?include=location,vessel', async () => {
      await findContainer(db, t.accountId, t.containerId);
      const { rows } = await listTransportEvents(db, t.accountId, t.containerId, { number: 1, size: 100 });
      await vesselsByIds(
        db,
        rows.map((r) => r.vessel_id),
      );
    });
    await capture('GET /v2/shipments?page[size]=30 (100,000 shipments)', async () => {
      const { rows } = await listShipments(
        db,
        t.largeAccountId,
        { sort: { column: 'created_at', desc: true } },
        page,
      );
      await containerIdsByShipment(
        db,
        t.largeAccountId,
        rows.map((r) => r.id),
      );
    });
    await capture('worker: claim due shipment refreshes', () =>
      claimDueShipments(db, 'explain', 32, 120_000),
    );
    await capture('worker: stored state of a shipment (every refresh)', () =>
      loadStoredState(db, t.shipmentId),
    );
    await capture('worker: claim due webhook notifications', () =>
      claimDueNotifications(db, 'explain', 64, 120_000, 64, []),
    );
  } finally {
    await db.destroy();
    await explain.end();
  }
  return plans;
}

export function plansMarkdown(plans: Plan[], title: string): string {
  const out = [`# ${title}`, ''];
  let endpoint = '';
  for (const p of plans) {
    if (p.endpoint !== endpoint) {
      endpoint = p.endpoint;
      out.push(`## ${endpoint}`, '');
    }
    out.push('```sql', p.sql, '```', '', '```', p.plan, '```', '');
  }
  return out.join('\n');
}
