import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { ENGINES } from '../helpers/db.ts';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { apiClient, processStorage } from '../helpers/storage.ts';

// One backup taken from a running server (on PGlite: through its socket), restored into a new
// database of the same engine. Split in steps so each stays within the test time-out under load.

const cli = (env: Record<string, string>, ...args: string[]) =>
  runNode(['src/cli/main.ts', ...args], { LOG_LEVEL: 'warn', ...env });

/** The data lines of a backup (the header carries a timestamp). */
const body = (file: string) => {
  const raw = readFileSync(file);
  return (file.endsWith('.gz') ? gunzipSync(raw) : raw).toString().split('\n').slice(1).join('\n');
};

const serve = (env: Record<string, string>, port: number) =>
  spawnNode(['src/main.ts'], { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });

for (const engine of ENGINES) {
  describe(`db backup and restore [${engine}]`, () => {
    let from: Awaited<ReturnType<typeof processStorage>>;
    let to: Awaited<ReturnType<typeof processStorage>>;
    let files: string;
    let file: string;
    let key: string;
    let accountId: string;
    /** What the backup said it wrote; the restore must say it loaded the same. */
    let written: { rows: number; tables: number };
    before(async () => {
      from = await processStorage(engine);
      // On PGlite a DATA_DIR with nothing in it: a restore onto a new machine creates the cluster.
      to = await processStorage(engine, { empty: true });
      files = mkdtempSync(join(tmpdir(), 'trk-backup-'));
      file = join(files, 'tracker.jsonl.gz');
    });
    after(async () => {
      rmSync(files, { recursive: true, force: true });
      await from.cleanup();
      await to.cleanup();
    });

    test('backup of a running server', async () => {
      const port = await freePort();
      const server = serve(from.env, port);
      try {
        key = (await server.waitFor(/api key: (\S+)/, 180_000))[1]!;
        const api = apiClient(port, key);
        for (let i = 0; i < 3; i++) {
          const r = await api('POST', '/v2/tracking_requests', {
            data: {
              type: 'tracking_request',
              attributes: { request_type: 'bill_of_lading', request_number: `BKP${i}`, scac: 'MSCU' },
            },
          });
          assert.equal(r.status, 201);
        }
        accountId = JSON.parse(
          (await cli(from.env, 'accounts', 'create', 'Backed up', '--json')).stdout,
        ).account_id;
        const made = await cli(from.env, 'db', 'backup', file, '--json');
        assert.equal(made.code, 0, made.stderr);
        written = JSON.parse(made.stdout);
        assert.ok(written.rows >= 6);
      } finally {
        server.kill('SIGTERM');
        await server.exited;
      }
    });

    test('restore into an empty database; a non-empty one is refused unless --force', async () => {
      const restored = await cli(to.env, 'db', 'restore', file);
      assert.equal(restored.code, 0, restored.stderr);
      // Both count the same thing: rows, and the tables that have any.
      assert.equal(
        restored.stdout,
        `Restored ${written.rows} rows of ${written.tables} tables from ${file}.\n`,
      );
      const again = await cli(to.env, 'db', 'restore', file);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /not empty.*--force/);
      const forced = await cli(to.env, 'db', 'restore', file, '--force');
      assert.equal(forced.code, 0, forced.stderr);
      // Same data: a backup of the restored database has the same rows (and sequences).
      const copy = join(files, 'copy.jsonl');
      const copied = await cli(to.env, 'db', 'backup', copy);
      assert.equal(copied.stdout, `Backed up ${written.rows} rows of ${written.tables} tables to ${copy}.\n`);
      assert.equal(body(copy), body(file));
      const garbage = join(files, 'garbage.jsonl');
      writeFileSync(garbage, '{"hello":1}\n');
      const refused = await cli(to.env, 'db', 'restore', garbage, '--force');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /not a backup/);
    });

    test('the restored database serves the same account, keys and data', async () => {
      const keys = await cli(to.env, 'api-keys', 'list', '--account', accountId);
      assert.match(keys.stdout, /^\S+ {2}trk_\w+… {2}created \S+ {2}last used never {2}active\n$/);
      const port = await freePort();
      const server = serve(to.env, port);
      try {
        const list = await apiClient(port, key)('GET', '/v2/tracking_requests');
        assert.equal(list.status, 200);
        assert.equal(list.body.data.length, 3);
      } finally {
        server.kill('SIGTERM');
        await server.exited;
      }
    });
  });
}
