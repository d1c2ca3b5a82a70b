import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { processStorage } from '../helpers/storage.ts';

// SIGKILL in the middle of write bursts, four times: every restart serves within 60 s and every
// acknowledged (201) tracking request is there afterwards.

const KILLS = 4;
const WRITERS = 6;

describe('embedded database crash safety [pglite]', () => {
  test(`SIGKILL during write bursts, ${KILLS} times: restarts, no acknowledged write lost`, {
    timeout: 300_000,
  }, async () => {
    const s = await processStorage('pglite');
    const env = { ...s.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
    const acknowledged: string[] = [];
    let key = '';
    let n = 0;
    try {
      for (let round = 0; round <= KILLS; round++) {
        const port = await freePort();
        const started = Date.now();
        const server = spawnNode(['src/main.ts'], { ...env, PORT: String(port) });
        try {
          if (!key) key = (await server.waitFor(/api key: (\S+)/, 60_000))[1]!;
          const post = async (): Promise<Response | null> =>
            fetch(`http://127.0.0.1:${port}/v2/tracking_requests`, {
              method: 'POST',
              headers: { authorization: `Token ${key}`, 'content-type': 'application/vnd.api+json' },
              body: JSON.stringify({
                data: {
                  type: 'tracking_request',
                  attributes: { request_type: 'bill_of_lading', request_number: `CRASH${++n}`, scac: 'MSCU' },
                },
              }),
            }).catch(() => null);
          // Serving again within 60 s of the (re)start.
          while (!(await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok) {
            assert.ok(
              Date.now() - started < 60_000,
              `round ${round}: not serving within 60 s\n${server.output()}`,
            );
            await new Promise((r) => setTimeout(r, 100));
          }
          if (round === KILLS) break;
          let stop = false;
          const writers = Array.from({ length: WRITERS }, async () => {
            while (!stop) {
              const res = await post();
              if (!res) return;
              const body = (await res.json().catch(() => null)) as { data?: { id: string } } | null;
              if (res.status === 201 && body?.data) acknowledged.push(body.data.id);
            }
          });
          // Kill once writes are flowing, at a point that varies from round to round.
          const before = acknowledged.length;
          while (acknowledged.length < before + 5) await new Promise((r) => setTimeout(r, 10));
          await new Promise((r) => setTimeout(r, 200 + round * 150));
          server.kill('SIGKILL');
          await server.exited;
          stop = true;
          await Promise.all(writers);
        } finally {
          if (round === KILLS) {
            // Every acknowledged write survived the kills; read through the running server's socket.
            const url = (await runNode(['src/cli/main.ts', 'db', 'url'], env)).stdout.trim();
            const c = new pg.Client({ connectionString: url });
            await c.connect();
            const r = await c.query('select id::text from tracking_requests where id = any($1::uuid[])', [
              acknowledged,
            ]);
            await c.end();
            assert.ok(acknowledged.length > KILLS * 5);
            assert.equal(r.rows.length, acknowledged.length);
            server.kill('SIGTERM');
            assert.equal(await server.exited, 0);
          }
          server.kill('SIGKILL');
        }
      }
    } finally {
      await s.cleanup();
    }
  });
});
