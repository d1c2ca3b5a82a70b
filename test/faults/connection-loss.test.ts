import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { createKeyCache } from '../../src/accounts/key-cache.ts';
import { startChangeFeed } from '../../src/db/change-feed.ts';
import { isConnectionError } from '../../src/db/connection-errors.ts';
import { cacheSubscriber } from '../../src/http/cache-subscriber.ts';
import { createResponseCache } from '../../src/http/response-cache.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { findPostgresBin, startCluster } from '../helpers/pg-cluster.ts';
import { assertOkOrUnavailable, createTracking, type Service, startService } from './service.ts';

// Connection loss never crashes a process (issue 10, item 3). PostgreSQL only: it is about
// sessions a server (or a DBA, or a failover) takes away. Part (a) terminates the service's
// sessions on the shared server; part (b) stops a throwaway server of the test's own for seconds.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const numbers = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => `SIMBL2C${tag}${String(i).padStart(3, '0')}`);

async function queryOnce<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url, application_name: 'fault-test' });
  c.on('error', () => {});
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end().catch(() => {});
  }
}

/** Every tracking request reached `created` and every notification was delivered. */
async function assertWorkCompletes(svc: Service, url: string, expected: number): Promise<void> {
  await eventually(
    async () =>
      (await svc.call('GET', '/v2/tracking_requests?filter[status]=created&page[size]=1')).body?.meta
        ?.total === expected,
    60_000,
    `all ${expected} tracking requests created`,
  );
  await eventually(
    async () => {
      const [r] = await queryOnce<{ total: number; pending: number }>(
        url,
        `select count(*)::int as total, count(*) filter (where delivery_status <> 'succeeded')::int as pending
           from webhook_notifications`,
      );
      return r!.total >= expected && r!.pending === 0;
    },
    60_000,
    'every webhook notification delivered',
  );
}

const skip = !process.env.TEST_DATABASE_URL && 'needs TEST_DATABASE_URL';

describe('connection loss on PostgreSQL', { skip }, () => {
  test('a checked-out client and the LISTEN session lose their server: no crash, caches flushed, listening again', async () => {
    const db = await createTestDatabase('postgres', { poolSize: 2 });
    const name = new URL(db.url!).pathname.slice(1);
    const warnings: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
    const responses = createResponseCache({ maxBytes: 1 << 20, ttlMs: 60_000 });
    const keys = createKeyCache();
    const stopFeed = await startChangeFeed(db, [cacheSubscriber({ responses, keys }, log)]);
    // Selected by what they are, not by application_name, so the test holds for any DATABASE_URL.
    const terminate = (where: string, value: unknown) =>
      queryOnce<{ n: number }>(
        process.env.TEST_DATABASE_URL!,
        `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
          where datname = $1 and ${where}`,
        [name, value],
      );
    const cached = () => {
      responses.set('acct', '/x', responses.begin('acct'), { body: 'x', contentType: 'text/plain' }, []);
      keys.set('k', { accountId: 'acct', keyId: 'key' }, keys.generation());
      return responses.get('acct', '/x') !== undefined && keys.get('k') !== undefined;
    };
    try {
      await eventually(async () => cached(), 5000, 'caches on while the feed listens');

      // A transaction holds a pool client while its session is terminated: the next statement
      // fails with a connection error, and nothing is thrown outside (an unhandled `error` event
      // of the client would fail this test as an uncaught exception).
      const failure = await db.db
        .transaction()
        .execute(async (tx) => {
          const [{ pid }] = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows as [
            { pid: number },
          ];
          const [t] = await terminate('pid = $2', pid);
          assert.equal(t!.n, 1);
          await sleep(200);
          await sql`select 1`.execute(tx);
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      assert.ok(failure && isConnectionError(failure), `connection error, got ${String(failure)}`);
      // The pool replaced the broken client.
      assert.deepEqual((await sql<{ one: number }>`select 1 as one`.execute(db.db)).rows, [{ one: 1 }]);

      // The LISTEN session is terminated: the caches are emptied (notifications may have been
      // missed) and come back on once it listens again.
      assert.ok(cached());
      const [t] = await terminate(`query like 'listen %' and $2::int = 0`, 0);
      assert.equal(t!.n, 1);
      await eventually(
        async () => warnings.includes('change feed lost: response and key caches off until it reconnects'),
        5000,
        'feed loss noticed',
      );
      assert.equal(responses.get('acct', '/x'), undefined);
      assert.equal(keys.get('k'), undefined);
      await eventually(async () => cached(), 5000, 'caches on again after reconnecting');
      // And the new session hears notifications.
      await sql`select pg_notify('tracker_changes', 'acct')`.execute(db.db);
      await eventually(async () => responses.get('acct', '/x') === undefined, 5000, 'invalidation heard');
    } finally {
      await stopFeed();
      await db.destroy();
    }
  });

  test('pg_terminate_backend of every service session, repeatedly, under load', async () => {
    const db = await createTestDatabase('postgres');
    await db.close();
    const name = new URL(db.url!).pathname.slice(1);
    const svc = await startService(db.url!);
    try {
      const all = numbers('7', 30);
      const until = Date.now() + 60_000;
      let creating = true;
      let kills = 0;
      const killer = (async () => {
        for (let round = 0; creating || round < 10; round++) {
          await sleep(250);
          const [r] = await queryOnce<{ n: number }>(
            process.env.TEST_DATABASE_URL!,
            `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
              where datname = $1 and application_name <> 'fault-test' and pid <> pg_backend_pid()`,
            [name],
          );
          kills += r!.n;
        }
      })();
      const tally = { ok: 0, unavailable: 0 };
      const reader = (async () => {
        while (creating) {
          for (const path of [
            '/v2/tracking_requests',
            '/v2/shipments',
            '/v2/webhook_notifications',
            '/readyz',
          ]) {
            const a = await svc.call('GET', path);
            if (path === '/readyz') {
              assert.ok(a.status === 200 || a.status === 503, `readyz ${a.status}`);
              if (a.status === 503) assert.equal(a.body.database, 'unreachable');
            } else tally[assertOkOrUnavailable(a, `GET ${path}`)]++;
          }
        }
      })();
      await Promise.all(all.map((n, i) => sleep(i * 120).then(() => createTracking(svc, n, until))));
      creating = false;
      await Promise.all([killer, reader]);
      svc.assertAlive();
      assert.ok(kills >= 10, `sessions terminated: ${kills}`);
      assert.ok(tally.ok > 0, `some reads answered: ${JSON.stringify(tally)}`);

      await assertWorkCompletes(svc, db.url!, all.length);
      svc.assertAlive();
    } finally {
      await svc.close();
      await db.destroy();
    }
  });

  const bin = findPostgresBin();
  test('a PostgreSQL server stopped for seconds and started again', {
    skip: !bin && 'no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql',
  }, async () => {
    const cluster = await startCluster(bin!);
    let svc: Service | undefined;
    try {
      svc = await startService(cluster.url);
      const s = svc;
      const until = Date.now() + 60_000;
      const before = numbers('1', 6);
      await Promise.all(before.map((n) => createTracking(s, n, until)));
      await assertWorkCompletes(s, cluster.url, before.length);

      // Accepted just before the server goes away: work the worker may hold when it does.
      const inFlight = numbers('2', 6);
      for (const n of inFlight) {
        const a = await s.call('POST', '/v2/tracking_requests', {
          data: { attributes: { request_type: 'bill_of_lading', request_number: n, scac: 'MAEU' } },
        });
        assert.equal(a.status, 201);
      }
      cluster.stop();
      const stoppedAt = Date.now();
      const seen = { api503: 0, create503: 0, readyApi503: 0, readyWorker503: 0 };
      while (Date.now() - stoppedAt < 4000) {
        const list = await s.call('GET', '/v2/tracking_requests');
        if (assertOkOrUnavailable(list, 'GET during outage') === 'unavailable') seen.api503++;
        const create = await s.call('POST', '/v2/tracking_requests', {
          data: {
            attributes: { request_type: 'bill_of_lading', request_number: 'SIMBL1C9999', scac: 'MAEU' },
          },
        });
        assert.equal(assertOkOrUnavailable(create, 'POST during outage'), 'unavailable');
        seen.create503++;
        // Reads by id that wait together share one statement (src/db/batched-rows.ts): its failure
        // is each one's 503.
        const byId = await Promise.all(
          [0, 1, 2, 3, 4, 5].map((i) =>
            s.call(
              'GET',
              i % 2 ? `/v2/shipments/${randomUUID()}?include=containers` : `/v2/containers/${randomUUID()}`,
            ),
          ),
        );
        for (const r of byId)
          assert.equal(assertOkOrUnavailable(r, 'GET by id during outage'), 'unavailable');
        for (const [port, k] of [
          [s.apiPort, 'readyApi503'],
          [s.workerPort, 'readyWorker503'],
        ] as const) {
          const r = await s.call('GET', '/readyz', undefined, port);
          if (r.status === 503) {
            assert.equal(r.body.status, 'unavailable');
            assert.match(r.headers.get('retry-after') ?? '', /^\d+$/);
            seen[k]++;
          }
        }
        s.assertAlive();
        await sleep(200);
      }
      assert.ok(seen.api503 > 0 && seen.readyApi503 > 0 && seen.readyWorker503 > 0, JSON.stringify(seen));

      cluster.start();
      for (const port of [s.apiPort, s.workerPort]) {
        await eventually(
          async () => (await s.call('GET', '/readyz', undefined, port)).status === 200,
          15_000,
          'ready again',
        );
      }
      const missing = await Promise.all(
        [0, 1, 2].map(() => s.call('GET', `/v2/shipments/${randomUUID()}?include=containers`)),
      );
      assert.deepEqual(
        missing.map((r) => r.status),
        [404, 404, 404],
        'reads by id answer again',
      );
      const after = numbers('3', 6);
      await Promise.all(after.map((n) => createTracking(s, n, until)));
      // Nothing lost: what was accepted before, during (nothing) and after the outage completes.
      await assertWorkCompletes(s, cluster.url, before.length + inFlight.length + after.length);
      const [x] = await queryOnce<{ n: number }>(
        cluster.url,
        `select count(*)::int as n from tracking_requests where request_number = 'SIMBL1C9999'`,
      );
      assert.equal(x!.n, 0, 'a create answered 503 stored nothing');
      s.assertAlive();
    } finally {
      await svc?.close();
      cluster.destroy();
    }
  });
});
