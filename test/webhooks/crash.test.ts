import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkDigit } from '../../src/util/iso6346.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV } from '../helpers/engine.ts';
import { freePort, type Spawned, spawnNode } from '../helpers/process.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { apiClient, processStorage } from '../helpers/storage.ts';

// A server process is killed with SIGKILL while deliveries are in flight. After a restart on the
// same database every notification is delivered at least once, and receivers dedupe on data.id.

const container = (i: number) => {
  const first10 = `ZZZU${String(100000 + i).padStart(6, '0')}`;
  return `${first10}${checkDigit(first10)}`;
};

for (const engine of ENGINES) {
  describe(`crash during delivery [${engine}]`, () => {
    test('SIGKILL with deliveries in flight loses no notification', async () => {
      const s = await processStorage(engine);
      const rx = await startReceiver();
      rx.on('/hook', () => ({ status: 200, delayMs: 300 }));
      const port = await freePort();
      const env = {
        ...s.env,
        ...FAST_ENGINE_ENV,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        WORKER_LEASE_MS: '1000',
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWLIST: '127.0.0.0/8',
        WEBHOOK_RETRY_SCHEDULE: Array(12).fill('50ms').join(','),
        WEBHOOK_TIMEOUT_MS: '3000',
      };
      let server: Spawned = spawnNode(['src/main.ts'], env);
      try {
        const [, key] = await server.waitFor(/api key: (\S+)/);
        const api = apiClient(port, key!);
        const hook = await api('POST', '/v2/webhooks', {
          data: { attributes: { url: rx.url('/hook'), events: ['tracking_request.failed'] } },
        });
        assert.equal(hook.status, 201);
        const N = 20;
        for (let i = 0; i < N; i++) {
          // Unknown container numbers fail at once in the sandbox: one tracking_request.failed each.
          const r = await api('POST', '/v2/tracking_requests', {
            data: { attributes: { request_type: 'container', request_number: container(i), scac: 'TEST' } },
          });
          assert.equal(r.status, 201);
        }
        await eventually(async () => rx.at('/hook').length >= 3, 15_000, 'deliveries in flight');
        server.kill('SIGKILL');
        await server.exited;
        const seenBeforeRestart = rx.at('/hook').length;

        server = spawnNode(['src/main.ts'], env);
        const all = await eventually(
          async () => {
            const r = await api(
              'GET',
              '/v2/webhook_notifications?filter[delivery_status]=succeeded&page[size]=100',
            );
            return r.body.meta?.total === N && r.body.data;
          },
          30_000,
          'every notification delivered',
        );
        const delivered = new Set(rx.at('/hook').map((r) => r.json.data.id));
        for (const n of all) assert.ok(delivered.has(n.id), `notification ${n.id} reached the receiver`);
        assert.equal(delivered.size, N);
        assert.ok(rx.at('/hook').length >= N);
        assert.ok(seenBeforeRestart < rx.at('/hook').length, 'deliveries continued after the restart');
        const total = await api('GET', '/v2/webhook_notifications');
        assert.equal(total.body.meta.total, N, 'no notification lost or doubled');
      } finally {
        server.kill('SIGKILL');
        await server.exited;
        await rx.close();
        await s.cleanup();
      }
    });
  });
}
