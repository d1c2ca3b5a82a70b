import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENGINES } from '../helpers/db.ts';
import { freePort, runNode, spawnNode } from '../helpers/process.ts';
import { processStorage } from '../helpers/storage.ts';

// Account and key changes made with the CLI while the server runs take effect on its API within
// 2 s (the key cache lives a minute: only the change feed can make this pass).

for (const engine of ENGINES) {
  describe(`CLI changes reach the running API [${engine}]`, () => {
    test('new account and key work at once; a revoked (cached) key is refused within 2 s', async () => {
      const s = await processStorage(engine);
      const env = { ...s.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1' };
      const port = await freePort();
      const server = spawnNode(['src/main.ts'], { ...env, PORT: String(port) });
      const get = (key: string) =>
        fetch(`http://127.0.0.1:${port}/v2/tracking_requests`, { headers: { authorization: `Token ${key}` } })
          .then((r) => r.status)
          .catch(() => 0);
      try {
        const [, first] = await server.waitFor(/api key: (\S+)/, 60_000);
        while ((await get(first!)) !== 200) await new Promise((r) => setTimeout(r, 100));
        const created = await runNode(['src/cli/main.ts', 'accounts', 'create', 'Live', '--json'], env);
        assert.equal(created.code, 0, created.stderr);
        const acct = JSON.parse(created.stdout);
        assert.equal(await get(acct.api_key), 200);
        assert.equal(await get(acct.api_key), 200); // now served from the key cache
        const revoked = await runNode(['src/cli/main.ts', 'api-keys', 'revoke', acct.api_key_id], env);
        assert.equal(revoked.code, 0, revoked.stderr);
        const start = Date.now();
        while ((await get(acct.api_key)) !== 401) {
          assert.ok(Date.now() - start < 2000, 'revocation not effective within 2 s');
          await new Promise((r) => setTimeout(r, 50));
        }
      } finally {
        server.kill('SIGTERM');
        await server.exited;
        await s.cleanup();
      }
    });
  });
}
