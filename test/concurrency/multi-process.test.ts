import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { openPostgres } from '../../src/db/database.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { freePort, type Spawned, spawnNode } from '../helpers/process.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { spawnSimulator } from '../helpers/simulator.ts';
import { apiClient } from '../helpers/storage.ts';

// Two API processes and two worker processes on one PostgreSQL while tracking requests, refreshes
// and deliveries flow; one worker is killed with SIGKILL halfway. PostgreSQL only: embedded PGlite
// is a single-process database by design.

const N = 24;
const FLAKY = 4;

describe('many processes on one PostgreSQL', {
  skip: !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL',
}, () => {
  test('no refresh applied twice, no notification lost, the duplicate rule holds, a killed worker is taken over', async () => {
    const db = await createTestDatabase('postgres');
    await db.close();
    const sim = await spawnSimulator(['--flaky-hang-ms', '2500']);
    const rx = await startReceiver();
    rx.on('/all', () => ({ status: 204 }));
    const dir = mkdtempSync(join(tmpdir(), 'trk-conc-'));
    const carriers = join(dir, 'carriers.yaml');
    writeFileSync(
      carriers,
      `- scac: MAEU\n  adapter: dcsa-tnt-v2\n  base_url: ${sim.url}\n  auth: { type: headers, headers: { x-api-key: unused } }\n  requests_per_minute: 100000\n  number_types: [bill_of_lading, booking_number, container]\n  timeout_ms: 5000\n`,
    );
    const env = {
      DATABASE_URL: db.url!,
      CARRIERS_CONFIG: carriers,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WORKER_POLL_INTERVAL_MS: '25',
      WORKER_LEASE_MS: '1500',
      TRACKING_RETRY_BASE_MS: '5',
      REFRESH_INTERVAL_MS: '150',
      REFRESH_NEAR_ARRIVAL_MS: '150',
      RATE_LIMIT_CREATE_PER_MINUTE: '100000',
      RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWLIST: '127.0.0.0/8',
      WEBHOOK_RETRY_SCHEDULE: Array(12).fill('50ms').join(','),
    };
    const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
    const procs: Spawned[] = [];
    const start = (role: string, port: number) => {
      const p = spawnNode(['src/main.ts', '--role', role], { ...env, PORT: String(port) });
      procs.push(p);
      return p;
    };
    const inspect = await openPostgres(db.url!, 2);
    try {
      const apiA = start('api', ports[0]!);
      const apiB = start('api', ports[1]!);
      const w1 = start('worker', ports[2]!);
      start('worker', ports[3]!);
      // Exactly one of the two API processes creates the default account.
      const [, key] = await Promise.race([apiA.waitFor(/api key: (\S+)/), apiB.waitFor(/api key: (\S+)/)]);
      const call = (port: number, method: string, path: string, body?: unknown) =>
        apiClient(port, key!)(method, path, body);
      const hook = await call(ports[0]!, 'POST', '/v2/webhooks', {
        data: { attributes: { url: rx.url('/all') } },
      });
      assert.equal(hook.status, 201);
      assert.equal((await inspect.db.selectFrom('accounts').select('id').execute()).length, 1);

      // Every number is created through both API processes at once: one 201, one duplicate.
      const numbers = [
        ...Array.from({ length: N }, (_, i) => `SIMBL1C${String(i).padStart(4, '0')}`),
        ...Array.from({ length: FLAKY }, (_, i) => `SIMFLAKY${String(i).padStart(4, '0')}`),
      ];
      const results = await Promise.all(
        numbers.flatMap((n) =>
          [ports[0]!, ports[1]!].map((p) =>
            call(p, 'POST', '/v2/tracking_requests', {
              data: { attributes: { request_type: 'bill_of_lading', request_number: n, scac: 'MAEU' } },
            }),
          ),
        ),
      );
      assert.equal(results.filter((r) => r.status === 201).length, numbers.length);
      assert.equal(
        results.filter((r) => r.status === 422 && r.body.errors[0].code === 'duplicate').length,
        numbers.length,
      );

      await eventually(
        async () =>
          (await call(ports[1]!, 'GET', '/v2/tracking_requests?filter[status]=created')).body.meta.total ===
          numbers.length,
        40_000,
        'every request created',
      );
      await sim.advance(90);

      // Kill worker 1 while it holds leases (SIMFLAKY look-ups hang for 2.5 s).
      const w1Pid = String(w1.child.pid);
      const held = await eventually(
        async () => {
          const rows = await inspect.db
            .selectFrom('shipments')
            .select(['id', 'line_tracking_last_attempted_at'])
            .where('lease_owner', 'like', `%:${w1Pid}:%`)
            .execute();
          return rows.length > 0 && rows;
        },
        20_000,
        'worker 1 to hold a lease',
      );
      w1.kill('SIGKILL');
      await w1.exited;
      // Its leased shipments are refreshed by the other worker once the lease expires.
      await eventually(
        async () => {
          const rows = await inspect.db
            .selectFrom('shipments')
            .select(['id', 'lease_owner', 'line_tracking_last_attempted_at'])
            .where(
              'id',
              'in',
              held.map((h) => h.id),
            )
            .execute();
          return rows.every(
            (r) =>
              !r.lease_owner?.includes(`:${w1Pid}:`) &&
              (r.line_tracking_last_attempted_at?.getTime() ?? 0) >
                (held.find((h) => h.id === r.id)!.line_tracking_last_attempted_at?.getTime() ?? 0),
          );
        },
        20_000,
        "the killed worker's leases taken over",
      );

      await eventually(
        async () =>
          (await call(ports[0]!, 'GET', '/v2/tracking_requests?filter[status]=tracking_stopped')).body.meta
            .total === numbers.length,
        60_000,
        'every journey to end',
      );
      // No refresh applied twice: each transport event was recorded, and announced, exactly once.
      const doubled = await sql<{ reference_id: string }>`
        select reference_id from domain_events where reference_type = 'transport_event'
        group by reference_id having count(*) > 1`.execute(inspect.db);
      assert.deepEqual(doubled.rows, []);
      const succeeded = await sql<{ n: number }>`
        select count(*)::int as n from domain_events where event = 'tracking_request.succeeded'`.execute(
        inspect.db,
      );
      assert.equal(succeeded.rows[0]!.n, numbers.length);

      // Every domain event became exactly one notification, and every notification was delivered
      // (shipment.changed keeps a change history and is no webhook event: src/changes/).
      const counts = await sql<{ events: number; notifications: number; delivered: number }>`
        select (select count(*)::int from domain_events where event <> 'shipment.changed') as events,
               (select count(*)::int from webhook_notifications) as notifications,
               (select count(*)::int from webhook_notifications where delivery_status = 'succeeded') as delivered`.execute(
        inspect.db,
      );
      await eventually(
        async () => {
          const r = await sql<{ pending: number }>`
            select count(*)::int as pending from webhook_notifications where delivery_status <> 'succeeded'`.execute(
            inspect.db,
          );
          return r.rows[0]!.pending === 0;
        },
        30_000,
        'every notification delivered',
      );
      const c = counts.rows[0]!;
      assert.equal(c.notifications, c.events);
      const ids = await inspect.db.selectFrom('webhook_notifications').select('id').execute();
      const seen = new Set(rx.at('/all').map((r) => r.json.data.id));
      for (const { id } of ids) assert.ok(seen.has(id), `notification ${id} delivered`);
      assert.equal(seen.size, ids.length);
    } finally {
      for (const p of procs) p.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      await inspect.close();
      await sim.close();
      await rx.close();
      rmSync(dir, { recursive: true, force: true });
      await db.destroy();
    }
  });
});
