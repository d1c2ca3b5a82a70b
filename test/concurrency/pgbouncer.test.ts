import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { openPostgres } from '../../src/db/database.ts';
import type { PreparedStatements } from '../../src/db/statement-names.ts';
import { shipmentPage } from '../../src/shipments/sql-bodies/queries.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { type Bouncer, findPgbouncer, pgbouncerMissing, startPgbouncer } from '../helpers/pgbouncer.ts';
import { freePort, type Spawned, spawnNode } from '../helpers/process.ts';
import { apiClient } from '../helpers/storage.ts';

// The API and the worker behind PgBouncer in transaction mode (docs/deployment.md): each
// transaction runs on whichever server connection is free, so a statement prepared on one is
// missing on the next. PostgreSQL only, and only where pgbouncer is installed (.ci/run installs it).

describe('behind PgBouncer in transaction mode', { skip: pgbouncerMissing() }, () => {
  let db: TestDatabase;
  let bouncer: Bouncer;
  before(async () => {
    db = await createTestDatabase('postgres');
    await db.close();
    // Two server connections for every client: they take turns on them.
    bouncer = await startPgbouncer(findPgbouncer()!, db.url!, 2);
  });
  after(async () => {
    await bouncer?.stop();
    await db?.destroy();
  });

  /**
   * Runs a hot statement, lets another client take the server connection it ran on (PgBouncer
   * hands out the most recently used one) and runs it again, on the other server connection.
   */
  async function secondRun(mode: PreparedStatements): Promise<unknown> {
    const database = await openPostgres(bouncer.url, 1, { preparedStatements: mode, listenUrl: null });
    const other = new pg.Client({ connectionString: bouncer.url });
    await other.connect();
    try {
      const st = shipmentPage({ column: 'created_at', desc: true }, false, 7);
      const args = [randomUUID(), 0];
      await database.queryRows(st, args);
      await other.query('begin');
      await other.query('select 1');
      try {
        return await database.queryRows(st, args);
      } finally {
        await other.query('commit');
      }
    } finally {
      await other.end();
      await database.close();
    }
  }

  test('a named statement is missing on the next server connection; with prepared statements off it runs', async () => {
    await assert.rejects(secondRun('auto'), (err: { code?: string }) => err.code === '26000');
    assert.deepEqual(await secondRun('off'), [[0, null, null, null]]);
  });

  test('API and worker with DATABASE_PREPARED_STATEMENTS=off: sandbox requests tracked, lists and reads answer', async () => {
    const env = {
      DATABASE_URL: bouncer.url,
      DATABASE_PREPARED_STATEMENTS: 'off',
      DB_POOL_SIZE: '4',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      WORKER_POLL_INTERVAL_MS: '25',
      TRACKING_RETRY_BASE_MS: '5',
      RATE_LIMIT_CREATE_PER_MINUTE: '100000',
      RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
    };
    const [apiPort, workerPort] = [await freePort(), await freePort()];
    const procs: Spawned[] = [];
    try {
      const api = spawnNode(['src/main.ts', '--role', 'api'], { ...env, PORT: String(apiPort) });
      procs.push(api);
      const [, key] = await api.waitFor(/api key: (\S+)/);
      procs.push(spawnNode(['src/main.ts', '--role', 'worker'], { ...env, PORT: String(workerPort) }));
      const call = apiClient(apiPort, key!);

      const numbers = [
        'TEST-TR-SUCCEEDED',
        ...Array.from({ length: 7 }, (_, i) => `SIMBL1C${String(i).padStart(4, '0')}`),
      ];
      const created = await Promise.all(
        numbers.map((n) =>
          call('POST', '/v2/tracking_requests', {
            data: { attributes: { request_type: 'bill_of_lading', request_number: n, scac: 'TEST' } },
          }),
        ),
      );
      assert.deepEqual(
        created.map((r) => r.status),
        numbers.map(() => 201),
      );
      await eventually(
        async () =>
          (await call('GET', '/v2/tracking_requests?filter[status]=created')).body.meta?.total ===
          numbers.length,
        60_000,
        'every request tracked by the worker',
      );

      // Lists of several page sizes (each a statement of its own), with and without includes.
      for (const size of [1, 3, 8, 30]) {
        const shipments = await call('GET', `/v2/shipments?page[size]=${size}&include=containers`);
        assert.equal(shipments.status, 200);
        assert.equal(shipments.body.data.length, Math.min(size, numbers.length));
        const containers = await call('GET', `/v2/containers?page[size]=${size}`);
        assert.equal(containers.status, 200);
        assert.ok(containers.body.data.length >= 1);
        const requests = await call('GET', `/v2/tracking_requests?page[size]=${size}&include=tracked_object`);
        assert.equal(requests.status, 200);
        assert.equal(requests.body.data.length, Math.min(size, numbers.length));
      }
      const list = await call('GET', '/v2/shipments?page[size]=30');
      for (const s of list.body.data) {
        const one = await call('GET', `/v2/shipments/${s.id}?include=containers`);
        assert.equal(one.status, 200);
        const containerId = one.body.data.relationships.containers.data[0].id;
        const events = await call('GET', `/v2/containers/${containerId}/transport_events`);
        assert.equal(events.status, 200);
        assert.ok(events.body.data.length >= 1);
      }
      for (const p of procs) assert.doesNotMatch(p.output(), /prepared statement|"level":50/);
    } finally {
      for (const p of procs) p.kill();
      await Promise.all(procs.map((p) => p.exited));
    }
  });
});
