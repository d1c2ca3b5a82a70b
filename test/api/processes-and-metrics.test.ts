import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createMetrics } from '../../src/metrics.ts';
import { createTestDatabase, ENGINES } from '../helpers/db.ts';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';

for (const engine of ENGINES) {
  describe(`metrics [${engine}]`, () => {
    async function metricsApp(env: Record<string, string>) {
      const database = await createTestDatabase(engine);
      const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
      const app = await buildApp({ config, database, baseUrl: '', metrics: createMetrics(database) });
      return {
        app,
        get: (headers: Record<string, string> = {}) =>
          app.inject({ method: 'GET', url: '/metrics', headers }),
        close: async () => {
          await app.close();
          await database.destroy();
        },
      };
    }

    test('open: Prometheus text with HTTP, queue and pool metrics', async () => {
      const m = await metricsApp({ METRICS: 'open' });
      try {
        await m.app.inject({ method: 'GET', url: '/v2/shipping_lines' }); // a 401, measured too
        const res = await m.get();
        assert.equal(res.statusCode, 200);
        assert.match(res.headers['content-type'] as string, /text\/plain/);
        assert.match(
          res.body,
          /http_request_duration_seconds_count\{route="\/v2\/shipping_lines",method="GET",status="401"\} 1/,
        );
        for (const kind of ['tracking_request', 'shipment_refresh', 'webhook_notification', 'document']) {
          assert.match(res.body, new RegExp(`work_due\\{kind="${kind}"\\} 0`));
          assert.match(res.body, new RegExp(`work_oldest_due_seconds\\{kind="${kind}"\\}`));
        }
        assert.match(res.body, /db_pool_connections\{state="total"\}/);
        assert.match(res.body, /work_queue_scrape_ok 1/);
        assert.match(res.body, /response_cache_lookups_total\{result="hit"\} 0/);
        assert.match(res.body, /response_cache_entries 0/);
      } finally {
        await m.close();
      }
    });

    test('token: bearer required; off: no endpoint', async () => {
      const m = await metricsApp({ METRICS: 'token', METRICS_TOKEN: 's3cret' });
      try {
        assert.equal((await m.get()).statusCode, 401);
        assert.equal((await m.get({ authorization: 'Bearer nope' })).statusCode, 401);
        assert.equal((await m.get({ authorization: 'Bearer s3cret' })).statusCode, 200);
      } finally {
        await m.close();
      }
      const off = await metricsApp({ METRICS: 'off' });
      try {
        assert.equal((await off.get()).statusCode, 404);
      } finally {
        await off.close();
      }
    });
  });
}

describe('process roles', () => {
  test('embedded PGlite refuses several processes with a clear message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trk-'));
    try {
      const r = await runNode(['src/main.ts', '--processes', '2'], { DATA_DIR: dir, DATABASE_URL: '' });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /PGlite is a single-process database/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('bad --processes is refused', async () => {
    const r = await runNode(['src/main.ts', '--processes', 'many'], {});
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--processes must be an integer/);
  });

  if (process.env.TEST_DATABASE_URL) {
    test('--role api --processes 2 serves one port from two processes; a worker process serves /metrics', async () => {
      const db = await createTestDatabase('postgres');
      await db.close();
      const port = await freePort();
      const workerPort = await freePort();
      const env = { DATABASE_URL: db.url!, HOST: '127.0.0.1', LOG_LEVEL: 'info' };
      const api = spawnNode(['src/main.ts', '--role', 'api', '--processes', '2'], {
        ...env,
        PORT: String(port),
      });
      const worker = spawnNode(['src/main.ts', '--role', 'worker'], {
        ...env,
        PORT: String(workerPort),
        WORKER_POLL_INTERVAL_MS: '50',
      });
      try {
        const [, key] = await api.waitFor(/api key: (\S+)/);
        await api.waitFor(/"api \(cluster child\)"[\s\S]*"api \(cluster child\)"/);
        const h = { authorization: `Token ${key}`, 'content-type': 'application/vnd.api+json' };
        const created = await fetch(`http://127.0.0.1:${port}/v2/tracking_requests`, {
          method: 'POST',
          headers: h,
          body: JSON.stringify({
            data: {
              attributes: { request_type: 'bill_of_lading', request_number: 'TEST-TR-FAILED', scac: 'TEST' },
            },
          }),
        });
        assert.equal(created.status, 201);
        const id = ((await created.json()) as any).data.id;
        await worker.waitFor(/"started"/);
        let status = '';
        for (let i = 0; i < 100 && status !== 'failed'; i++) {
          const r = await fetch(`http://127.0.0.1:${port}/v2/tracking_requests/${id}`, { headers: h });
          status = ((await r.json()) as any).data.attributes.status;
          if (status !== 'failed') await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(status, 'failed', 'the worker process handled the request');
        const wm = await (await fetch(`http://127.0.0.1:${workerPort}/metrics`)).text();
        assert.match(wm, /carrier_lookups_total\{scac="TEST",outcome="permanent_failure"\} 1/);
        assert.equal((await fetch(`http://127.0.0.1:${workerPort}/healthz`)).status, 200);
        api.kill('SIGTERM');
        worker.kill('SIGTERM');
        assert.equal(await api.exited, 0);
        assert.equal(await worker.exited, 0);
      } finally {
        api.kill('SIGKILL');
        worker.kill('SIGKILL');
        await db.destroy();
      }
    });
  }
});
