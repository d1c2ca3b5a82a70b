import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { createAccount } from '../../src/accounts/service.ts';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openEmbedded } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migratedPgliteDir } from '../helpers/db.ts';

// A client of the embedded database's socket that opens a transaction and goes quiet (psql after
// BEGIN) holds PGlite's single session. Past EMBEDDED_IDLE_IN_TRANSACTION_MS it is rolled back and
// disconnected: the API, waiting behind it, answers within the limit (issue 31). A client that keeps
// it busy instead, statement after statement inside one transaction, is cut off past
// EMBEDDED_STATEMENT_TIMEOUT_MS the same way.

const LIMIT_MS = 1500;

describe('embedded socket: idle-in-transaction limit [pglite]', () => {
  test('an open BEGIN through the socket stops the API no longer than the limit', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await migratedPgliteDir('trk-idle-');
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const database = await openEmbedded({ dataDir, role: 'server', idleInTransactionMs: LIMIT_MS, log });
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir });
    const app = await buildApp({ config, database, baseUrl: '' });
    const client = new pg.Client({ connectionString: database.url! });
    try {
      await migrate(database);
      const { apiKey } = await createAccount(database.db, 'idle');
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      const shipments = () => fetch(`${url}/v2/shipments`, { headers: { authorization: `Token ${apiKey}` } });

      await client.connect();
      // The first error is PostgreSQL's FATAL message, then the connection's end.
      const lost = new Promise<Error>((resolve) => client.on('error', resolve));
      await client.query('begin');
      await client.query(`insert into accounts (id, name) values (gen_random_uuid(), 'left open')`);
      const t0 = Date.now();
      const res = await shipments();
      const waitedMs = Date.now() - t0;
      assert.equal(res.status, 200);
      assert.ok(waitedMs >= LIMIT_MS - 200, `the API waited behind the transaction (${waitedMs} ms)`);
      assert.ok(waitedMs < LIMIT_MS + 3000, `answered ${waitedMs} ms after the client went idle`);

      // The client is told why and disconnected; its transaction was rolled back.
      const error = (await lost) as Error & { code?: string };
      assert.equal(error.code, '25P03', String(error));
      assert.match(error.message, /EMBEDDED_IDLE_IN_TRANSACTION_MS/);
      await assert.rejects(client.query('select 1'));
      const left = await database.queryRows(
        { name: 'left_open', text: `select count(*) from accounts where name = 'left open'` },
        [],
      );
      assert.equal(Number(left[0]![0]), 0);
      assert.ok(
        warnings.some((w) => w.includes('rolled back and disconnected')),
        warnings.join('\n'),
      );

      // The socket still serves new clients.
      const again = new pg.Client({ connectionString: database.url! });
      await again.connect();
      assert.equal((await again.query('select 1 as one')).rows[0].one, 1);
      await again.end();
      console.log(`API answered after ${waitedMs} ms behind an idle transaction (limit ${LIMIT_MS} ms)`);
    } finally {
      await client.end().catch(() => {});
      await app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a transaction that keeps the database busy is cut off past the statement time-out', {
    timeout: 180_000,
  }, async () => {
    const dataDir = await migratedPgliteDir('trk-hold-');
    const warnings: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const database = await openEmbedded({
      dataDir,
      role: 'server',
      idleInTransactionMs: 60_000,
      statementTimeoutMs: LIMIT_MS,
      log,
    });
    const config = loadConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir });
    const app = await buildApp({ config, database, baseUrl: '' });
    const client = new pg.Client({ connectionString: database.url! });
    try {
      await migrate(database);
      const { apiKey } = await createAccount(database.db, 'hold');
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      await client.connect();
      const lost = new Promise<Error & { code?: string }>((resolve) => client.on('error', resolve));
      await client.query('begin');
      // Never idle for long: a statement every 100 ms, each far inside the idle limit.
      let inserted = 0;
      const busy = (async () => {
        for (;;) {
          await client.query(`insert into accounts (id, name) values (gen_random_uuid(), 'busy')`);
          inserted += 1;
          await new Promise((r) => setTimeout(r, 100));
        }
      })().catch((err: Error) => err);

      const t0 = Date.now();
      const res = await fetch(`${url}/v2/shipments`, { headers: { authorization: `Token ${apiKey}` } });
      const waitedMs = Date.now() - t0;
      assert.equal(res.status, 200);
      assert.ok(waitedMs < LIMIT_MS + 3000, `answered ${waitedMs} ms after the transaction began`);

      const error = await lost;
      assert.equal(error.code, '57014', String(error));
      assert.match(error.message, /EMBEDDED_STATEMENT_TIMEOUT_MS/);
      assert.ok((await busy) instanceof Error, 'the busy client finds its connection gone');
      assert.ok(inserted >= 3, `the client ran statements until the limit (${inserted})`);
      const left = await database.queryRows(
        { name: 'left_busy', text: `select count(*) from accounts where name = 'busy'` },
        [],
      );
      assert.equal(Number(left[0]![0]), 0, 'its transaction was rolled back');
      assert.ok(
        warnings.some((w) => w.includes('EMBEDDED_STATEMENT_TIMEOUT_MS')),
        warnings.join('\n'),
      );
      console.log(`busy transaction cut off after ${inserted} statements; API answered in ${waitedMs} ms`);
    } finally {
      await client.end().catch(() => {});
      await app.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
