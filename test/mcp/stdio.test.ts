import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { startTestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { processStorage } from '../helpers/storage.ts';
import { type Tracked, trackSandbox } from '../helpers/tracked.ts';

const ROOT = resolve(import.meta.dirname, '../..');

for (const engine of ENGINES) {
  describe(`npm run mcp: MCP over stdio [${engine}]`, () => {
    let storage: Awaited<ReturnType<typeof processStorage>>;
    let key: string;
    let otherKey: string;
    let mine: Tracked;
    let theirs: Tracked;

    before(async () => {
      // Sandbox data written by an in-process API and worker, closed again before the stdio
      // server opens the same storage (PGlite is single-process).
      storage = await processStorage(engine);
      const database = await openDatabase({
        databaseUrl: storage.env.DATABASE_URL || null,
        dataDir: storage.env.DATA_DIR ?? '',
        poolSize: 4,
      });
      await migrate(database);
      const t = await startTestApp(engine, FAST_ENGINE_ENV, {
        database: { ...database, url: null, destroy: () => database.close() },
      });
      const worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
      try {
        key = t.key;
        const other = await t.newAccount('other');
        otherKey = other.key;
        mine = await trackSandbox(t, worker, 'TEST-TR-SUCCEEDED');
        theirs = await trackSandbox(t, worker, 'TEST-TR-SUCCEEDED', other.key);
      } finally {
        await worker.stop();
        await t.close();
        await database.close();
      }
    });
    after(async () => {
      await storage.cleanup();
    });

    test('tools over stdio, scoped to TRACKER_API_KEY; logs on stderr only', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: ['src/mcp-main.ts'],
        cwd: ROOT,
        env: {
          ...(process.env as Record<string, string>),
          ...storage.env,
          TRACKER_API_KEY: key,
          LOG_LEVEL: 'info',
          // The set-up polled the API as this account: its rate-limit window is spent.
          RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
        },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d) => {
        stderr += d.toString();
      });
      const client = new Client({ name: 'test', version: '1.0.0' });
      let protocolErrors = 0;
      client.onerror = () => protocolErrors++;
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, 11);
        assert.ok(tools.every((x) => x.inputSchema.type === 'object'));
        const r = (await client.callTool({
          name: 'search_container',
          arguments: { query: 'TEST-TR-SUCCEEDED' },
        })) as any;
        assert.ok(!r.isError, JSON.stringify(r));
        // The server has GET /v2/search (issue 13), so the tool answers its ranked results.
        assert.deepEqual(
          r.structuredContent.results.filter((x: any) => x.entity_type === 'shipment').map((s: any) => s.id),
          [mine.shipmentId],
        );
        const e = (await client.callTool({
          name: 'get_container_transport_events',
          arguments: { id: mine.containerIds[0] },
        })) as any;
        assert.ok(e.structuredContent.transport_events.length >= 4);
        const hidden = (await client.callTool({
          name: 'get_container',
          arguments: { id: theirs.containerIds[0] },
        })) as any;
        assert.equal(hidden.isError, true);
      } finally {
        await client.close();
      }
      // stdout carried only JSON-RPC (a stray line would have been a protocol error); logs went to stderr.
      assert.equal(protocolErrors, 0);
      assert.match(stderr, /MCP server ready on stdio/);
      assert.ok(otherKey);
    });

    test('no TRACKER_API_KEY, or an unknown one, is refused at start', () => {
      for (const k of ['', 'trk_000000000000_unknown']) {
        const r = spawnSync(process.execPath, ['src/mcp-main.ts'], {
          cwd: ROOT,
          env: { ...process.env, ...storage.env, TRACKER_API_KEY: k, LOG_LEVEL: 'silent' },
          input: '',
          encoding: 'utf8',
          timeout: 60_000,
        });
        assert.equal(r.status, 2, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, k ? /refused/ : /Set TRACKER_API_KEY/);
      }
    });
  });
}
