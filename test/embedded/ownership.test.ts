import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { apiClient, processStorage } from '../helpers/storage.ts';

// The embedded database has one owner (the server); the CLI and psql reach it through the
// loopback socket recorded in DATA_DIR, and open the files themselves only when no server runs.

const cli = (env: Record<string, string>, ...args: string[]) => runNode(['src/cli/main.ts', ...args], env);
const hasPsql = spawnSync('psql', ['--version']).status === 0;

async function waitUntil(check: () => Promise<boolean>, ms: number, what: string): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return Date.now() - start;
}

describe('embedded database ownership [pglite]', () => {
  test('one server owns DATA_DIR; CLI and psql reach it; changes reach the API within 2 s', {
    timeout: 240_000,
  }, async () => {
    const s = await processStorage('pglite');
    const dir = s.env.DATA_DIR!;
    const env = { ...s.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
    const port = await freePort();
    const server = spawnNode(['src/main.ts'], { ...env, PORT: String(port) });
    try {
      await server.waitFor(/api key: (\S+)/, 60_000);
      const lock = JSON.parse(readFileSync(join(dir, 'tracker.lock'), 'utf8'));
      assert.equal(lock.pid, server.child.pid);

      // A second server is refused fast, names the directory and the owner, touches nothing.
      const t0 = Date.now();
      const second = await runNode(['src/main.ts'], { ...env, PORT: String(await freePort()) });
      assert.notEqual(second.code, 0);
      assert.ok(Date.now() - t0 < 10_000, 'refused within a few seconds');
      assert.ok(second.stderr.includes(dir), second.stderr);
      assert.ok(second.stderr.includes(String(server.child.pid)), second.stderr);
      assert.deepEqual(JSON.parse(readFileSync(join(dir, 'tracker.lock'), 'utf8')), lock);

      // CLI through the socket: --json shapes, several calls in a row and at once.
      const created = await cli(env, 'accounts', 'create', 'Acme', '--json');
      assert.equal(created.code, 0, created.stderr);
      const acct = JSON.parse(created.stdout);
      assert.match(acct.account_id, /^[0-9a-f-]{36}$/);
      assert.match(acct.api_key, /^trk_/);
      assert.match(acct.api_key_id, /^[0-9a-f-]{36}$/);
      const more = await cli(env, 'api-keys', 'create', '--account', acct.account_id, '--json');
      assert.equal(more.code, 0, more.stderr);
      const key2 = JSON.parse(more.stdout);
      assert.deepEqual(Object.keys(key2).sort(), ['account_id', 'api_key', 'api_key_id']);
      const listed = await cli(env, 'api-keys', 'list', '--account', acct.account_id, '--json');
      const keys = JSON.parse(listed.stdout);
      assert.equal(keys.length, 2);
      for (const k of keys) {
        assert.deepEqual(Object.keys(k).sort(), [
          'created_at',
          'id',
          'last_used_at',
          'name',
          'prefix',
          'revoked_at',
        ]);
      }
      assert.ok(!listed.stdout.includes(acct.api_key) && !listed.stdout.includes(key2.api_key));
      // What the data refuses is a message and exit status 1, not a usage error or a stack trace.
      const nobody = await cli(env, 'accounts', 'show', '00000000-0000-4000-8000-000000000000');
      assert.equal(nobody.code, 1, nobody.stderr);
      assert.match(nobody.stderr, /^No account 00000000-0000-4000-8000-000000000000\n$/);
      const parallel = await Promise.all(
        [1, 2, 3, 4].map((i) => cli(env, 'accounts', 'create', `Parallel ${i}`, '--json')),
      );
      for (const r of parallel) assert.equal(r.code, 0, r.stderr);

      // The running API sees CLI-made keys, and a revocation, within 2 s.
      const api = apiClient(port, key2.api_key);
      const took = await waitUntil(
        async () => (await api('GET', '/v2/tracking_requests')).status === 200,
        2000,
        'new key accepted',
      );
      assert.ok(took <= 2000);
      assert.equal((await cli(env, 'api-keys', 'revoke', key2.api_key_id)).code, 0);
      await waitUntil(
        async () => (await api('GET', '/v2/tracking_requests')).status === 401,
        2000,
        'revoked key refused',
      );

      // db url: one URL, several connections in a row (pg driver; psql when installed).
      const url = await cli(env, 'db', 'url');
      assert.equal(url.code, 0, url.stderr);
      const dbUrl = url.stdout.trim();
      assert.match(dbUrl, /^postgres:\/\/\S+$/);
      for (let i = 0; i < 3; i++) {
        const c = new pg.Client({ connectionString: dbUrl });
        await c.connect();
        const r = await c.query('select count(*)::int as n from accounts');
        assert.equal(r.rows[0].n, 6);
        await c.end();
      }
      if (hasPsql) {
        for (let i = 0; i < 3; i++) {
          const r = spawnSync('psql', [dbUrl, '-Atc', 'select count(*) from api_keys'], { encoding: 'utf8' });
          assert.equal(r.status, 0, r.stderr);
          assert.equal(r.stdout.trim(), '7');
        }
      }

      // SIGTERM: clean stop within 30 s, socket closed and lock released.
      const stopAt = Date.now();
      server.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      assert.ok(Date.now() - stopAt < 30_000);
      assert.ok(!existsSync(join(dir, 'tracker.lock')));
      assert.equal((await cli(env, 'db', 'url')).code, 1);

      // No server: the CLI opens the files itself; concurrent calls wait for each other.
      const alone = await Promise.all(
        [1, 2, 3].map((i) => cli(env, 'accounts', 'create', `Alone ${i}`, '--json')),
      );
      for (const r of alone) assert.equal(r.code, 0, r.stderr);
      const list = await cli(env, 'api-keys', 'list', '--account', acct.account_id, '--json');
      assert.equal(JSON.parse(list.stdout).length, 2);
    } finally {
      server.kill('SIGKILL');
      await server.exited;
      await s.cleanup();
    }
  });

  test('after SIGKILL the stale lock is detected: the CLI and a new server open the files', {
    timeout: 180_000,
  }, async () => {
    const s = await processStorage('pglite');
    const env = { ...s.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
    let server = spawnNode(['src/main.ts'], { ...env, PORT: String(await freePort()) });
    try {
      await server.waitFor(/api key: (\S+)/, 60_000);
      server.kill('SIGKILL');
      await server.exited;
      assert.ok(existsSync(join(s.env.DATA_DIR!, 'tracker.lock')), 'lock left behind');
      assert.equal((await cli(env, 'db', 'url')).code, 1, 'a dead owner has no URL');
      const r = await cli(env, 'accounts', 'create', 'After kill', '--json');
      assert.equal(r.code, 0, r.stderr);
      const port = await freePort();
      server = spawnNode(['src/main.ts'], { ...env, PORT: String(port) });
      const api = apiClient(port, JSON.parse(r.stdout).api_key);
      assert.equal((await api('GET', '/v2/tracking_requests')).status, 200);
    } finally {
      server.kill('SIGKILL');
      await server.exited;
      await s.cleanup();
    }
  });
});
