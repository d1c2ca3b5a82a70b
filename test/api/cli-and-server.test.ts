import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENGINES } from '../helpers/db.ts';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { processStorage } from '../helpers/storage.ts';

for (const engine of ENGINES) {
  describe(`CLI and server process [${engine}]`, () => {
    test('first start creates a default account and prints its key; SIGTERM exits cleanly', async () => {
      // On PGlite an empty DATA_DIR: the very first start creates the cluster and migrates it.
      const s = await processStorage(engine, { empty: true });
      const port = await freePort();
      const server = spawnNode(['src/main.ts'], {
        ...s.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
      });
      try {
        const [, key] = await server.waitFor(/api key: (\S+)/);
        assert.match(server.output(), new RegExp(`http://localhost:${port}/docs`));
        let res: Response | undefined;
        for (let i = 0; i < 50 && !res; i++) {
          res = await fetch(`http://127.0.0.1:${port}/v2/tracking_requests`, {
            headers: { authorization: `Token ${key}` },
          }).catch(() => undefined);
          if (!res) await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(res?.status, 200);
        server.kill('SIGTERM');
        assert.equal(await server.exited, 0);
      } finally {
        server.kill('SIGKILL');
        await s.cleanup();
      }
    });

    test('accounts and api-keys commands; revoked keys stop working', async () => {
      const s = await processStorage(engine);
      try {
        const created = await runNode(
          ['src/cli/main.ts', 'accounts', 'create', 'Acme Imports', '--json'],
          s.env,
        );
        assert.equal(created.code, 0, created.stderr);
        const acct = JSON.parse(created.stdout);
        assert.match(acct.account_id, /^[0-9a-f-]{36}$/);
        assert.match(acct.api_key, /^trk_/);

        const second = JSON.parse(
          (
            await runNode(
              ['src/cli/main.ts', 'api-keys', 'create', '--account', acct.account_id, '--json'],
              s.env,
            )
          ).stdout,
        );
        const listed = await runNode(
          ['src/cli/main.ts', 'api-keys', 'list', '--account', acct.account_id, '--json'],
          s.env,
        );
        const keys = JSON.parse(listed.stdout);
        assert.equal(keys.length, 2);
        assert.ok(!listed.stdout.includes(acct.api_key), 'list never prints secrets');
        const revoked = await runNode(['src/cli/main.ts', 'api-keys', 'revoke', second.api_key_id], s.env);
        assert.equal(revoked.code, 0, revoked.stderr);
        // A lost key is found again from the account list: id, name, created, keys not revoked.
        const accounts = await runNode(['src/cli/main.ts', 'accounts', 'list', '--json'], s.env);
        assert.equal(accounts.code, 0, accounts.stderr);
        assert.deepEqual(
          JSON.parse(accounts.stdout).map(({ created_at, ...a }: { created_at: string }) => {
            assert.ok(!Number.isNaN(Date.parse(created_at)));
            return a;
          }),
          [{ account_id: acct.account_id, name: 'Acme Imports', live_keys: 1 }],
        );
        const bad = await runNode(
          ['src/cli/main.ts', 'api-keys', 'revoke', '00000000-0000-4000-8000-000000000000'],
          s.env,
        );
        // No such key: a refusal of the data (1), not a usage error (2).
        assert.equal(bad.code, 1);
        assert.match(bad.stderr, /^No API key 00000000-0000-4000-8000-000000000000\n$/);
        const usage = await runNode(['src/cli/main.ts', 'accounts', 'create'], s.env);
        assert.equal(usage.code, 2);
        assert.equal((await runNode(['src/cli/main.ts', 'migrate'], s.env)).code, 0);

        const port = await freePort();
        const server = spawnNode(['src/main.ts'], {
          ...s.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
        });
        try {
          await server.waitFor(/Server listening/);
          assert.doesNotMatch(server.output(), /api key:/, 'no default account when accounts exist');
          // …but the way to a new key, with the account's id.
          assert.match(
            server.output(),
            new RegExp(`npm run cli -- api-keys create --account ${acct.account_id}   \\(Acme Imports\\)`),
          );
          const get = (key: string) =>
            fetch(`http://127.0.0.1:${port}/v2/tracking_requests`, {
              headers: { authorization: `Token ${key}` },
            });
          assert.equal((await get(acct.api_key)).status, 200);
          assert.equal((await get(second.api_key)).status, 401);
          // Structured JSON logs with a request id.
          await server.waitFor(/"reqId"/);
        } finally {
          server.kill('SIGTERM');
          await server.exited;
        }
      } finally {
        await s.cleanup();
      }
    });

    test('bad configuration is refused with a message per variable', async () => {
      const r = await runNode(['src/main.ts'], { PORT: 'abc', ROLE: 'boss', DATABASE_URL: 'mysql://x' });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /PORT must be an integer/);
      assert.match(r.stderr, /ROLE must be one of/);
      assert.match(r.stderr, /DATABASE_URL must start with postgres/);
    });
  });
}
