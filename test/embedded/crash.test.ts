import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { processStorage } from '../helpers/storage.ts';

// SIGKILL of the server's whole process group (a shell wrapper, as `npm` or a supervisor runs it)
// in the middle of write bursts, ten times in a row, each restart started as soon as the wrapper
// has exited (while the killed node process may still be listed in /proc, issue 31): every
// restart serves within 120 s (the first start may take longer on a loaded
// machine), none is refused, and every acknowledged (201) tracking request is there afterwards.

const KILLS = 10;
const WRITERS = 6;

describe('embedded database crash safety [pglite]', () => {
  test(`SIGKILL during write bursts, ${KILLS} times: restarts, no acknowledged write lost`, {
    timeout: 1_200_000,
  }, async () => {
    const s = await processStorage('pglite');
    const env = { ...s.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
    const acknowledged: string[] = [];
    let key = '';
    let n = 0;
    /** Restarts begun while the killed owner was still listed in /proc (the window of the issue). */
    let stillListed = 0;
    try {
      for (let round = 0; round <= KILLS; round++) {
        const port = await freePort();
        const started = Date.now();
        const previous =
          round > 0 ? JSON.parse(readFileSync(join(s.env.DATA_DIR!, 'tracker.lock'), 'utf8')) : null;
        if (previous && existsSync(`/proc/${previous.pid}`)) stillListed++;
        const server = spawnNode(['src/main.ts'], { ...env, PORT: String(port) }, { group: true });
        try {
          if (!key) key = (await server.waitFor(/api key: (\S+)/, 300_000))[1]!;
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
              Date.now() - started < 120_000 && server.child.exitCode === null,
              `round ${round}: not serving within 120 s\n${server.output()}`,
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
          await new Promise((r) => setTimeout(r, 100 + round * 60));
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
            console.log(
              `${acknowledged.length} acknowledged writes; ${stillListed} of ${KILLS} restarts began while the killed server was still listed in /proc`,
            );
            assert.equal(r.rows.length, acknowledged.length);
            // SIGTERM to node alone: the wrapper then exits with node's status.
            process.kill(
              JSON.parse(readFileSync(join(s.env.DATA_DIR!, 'tracker.lock'), 'utf8')).pid,
              'SIGTERM',
            );
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
