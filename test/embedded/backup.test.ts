import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { ENGINES } from '../helpers/db.ts';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { apiClient, processStorage } from '../helpers/storage.ts';

const cli = (env: Record<string, string>, ...args: string[]) =>
  runNode(['src/cli/main.ts', ...args], { LOG_LEVEL: 'warn', ...env });

/** The data lines of a backup (the header carries a timestamp). */
const body = (file: string) => {
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString().split('\n').slice(1).join('\n');
};

for (const engine of ENGINES) {
  describe(`db backup and restore [${engine}]`, () => {
    test('backup, restore into an empty database, refuse a non-empty one unless --force', async () => {
      const from = await processStorage(engine);
      const to = await processStorage(engine);
      const files = mkdtempSync(join(tmpdir(), 'trk-backup-'));
      const port = await freePort();
      // On PGlite the backup is taken from a running server, through its socket.
      const server = spawnNode(['src/main.ts'], {
        ...from.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      try {
        const [, key] = await server.waitFor(/api key: (\S+)/, 60_000);
        const api = apiClient(port, key!);
        for (let i = 0; i < 3; i++) {
          const r = await api('POST', '/v2/tracking_requests', {
            data: {
              type: 'tracking_request',
              attributes: { request_type: 'bill_of_lading', request_number: `BKP${i}`, scac: 'MSCU' },
            },
          });
          assert.equal(r.status, 201);
        }
        const acct = JSON.parse((await cli(from.env, 'accounts', 'create', 'Backed up', '--json')).stdout);
        const file = join(files, 'tracker.jsonl.gz');
        const made = await cli(from.env, 'db', 'backup', file, '--json');
        assert.equal(made.code, 0, made.stderr);
        assert.ok(JSON.parse(made.stdout).rows >= 6);

        const restored = await cli(to.env, 'db', 'restore', file);
        assert.equal(restored.code, 0, restored.stderr);
        const again = await cli(to.env, 'db', 'restore', file);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /not empty.*--force/);
        const forced = await cli(to.env, 'db', 'restore', file, '--force');
        assert.equal(forced.code, 0, forced.stderr);

        // Same data: a backup of the restored database has the same rows, and keys still work.
        const copy = join(files, 'copy.jsonl');
        assert.equal((await cli(to.env, 'db', 'backup', copy)).code, 0);
        assert.equal(body(copy), body(file));
        const keys = await cli(to.env, 'api-keys', 'list', '--account', acct.account_id, '--json');
        assert.equal(JSON.parse(keys.stdout).length, 1);
        const port2 = await freePort();
        const server2 = spawnNode(['src/main.ts'], {
          ...to.env,
          PORT: String(port2),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        });
        try {
          const list = await apiClient(port2, key!)('GET', '/v2/tracking_requests');
          assert.equal(list.status, 200);
          assert.equal(list.body.data.length, 3);
        } finally {
          server2.kill('SIGTERM');
          await server2.exited;
        }
        const garbage = join(files, 'garbage.jsonl');
        assert.equal((await cli(from.env, 'db', 'restore', join(files, 'copy.jsonl'), '--force')).code, 0);
        await import('node:fs').then((fs) => fs.writeFileSync(garbage, '{"hello":1}\n'));
        assert.equal((await cli(to.env, 'db', 'restore', garbage, '--force')).code, 1);
      } finally {
        server.kill('SIGTERM');
        await server.exited;
        rmSync(files, { recursive: true, force: true });
        await from.cleanup();
        await to.cleanup();
      }
    });
  });
}
