import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { type SeededShipment, seedShipment } from '../helpers/seed.ts';

// The response cache, the key cache and batched rate limits, driven through HTTP. Writes that do
// not go through this server (the engine, another API process, the CLI) are made straight on the
// database, as those processes would; they must reach this server's cache through the change feed.

/** Repeats `fn` until `ok` (PostgreSQL delivers NOTIFY a moment after the commit), at most 2 s. */
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await fn();
  for (let i = 0; i < 100 && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 20));
    v = await fn();
  }
  return v;
}

for (const engine of ENGINES) {
  describe(`response cache [${engine}]`, () => {
    let t: TestApp;
    let s: SeededShipment;
    before(async () => {
      t = await startTestApp(engine);
      s = await seedShipment(t.database.db, t.accountId, { tags: ['first'] });
    });
    after(() => t.close());

    test('a repeated GET is served from the cache, byte for byte', async () => {
      const path = `/v2/shipments/${s.shipmentId}?include=containers`;
      const first = await t.request('GET', path);
      assert.equal(first.status, 200);
      const second = await t.request('GET', path);
      assert.equal(second.headers.get('x-cache'), 'hit');
      assert.equal(second.text, first.text);
      assert.equal(second.headers.get('content-type'), first.headers.get('content-type'));
      assert.ok(second.headers.get('x-ratelimit-remaining'), 'rate limit headers on hits too');
      assert.ok(second.headers.get('x-request-id'));
    });

    test('a write by another process (engine, other API process) reaches the cache', async () => {
      const path = `/v2/shipments/${s.shipmentId}`;
      await t.request('GET', path);
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      await t.database.db
        .updateTable('shipments')
        .set({ tags: ['from-elsewhere'] })
        .where('id', '=', s.shipmentId)
        .execute();
      const after = await until(
        () => t.request('GET', path),
        (r) => r.body.data.attributes.tags[0] === 'from-elsewhere',
      );
      assert.deepEqual(after.body.data.attributes.tags, ['from-elsewhere']);
    });

    test('new transport events show at once in the cached events list', async () => {
      const container = s.containerIds[0]!;
      const path = `/v2/containers/${container}/transport_events`;
      const before = await t.request('GET', path);
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      await t.database.db
        .deleteFrom('transport_events')
        .where('id', '=', s.transportEventIds.get(container)![0]!)
        .execute();
      const after = await until(
        () => t.request('GET', path),
        (r) => r.body.data.length === before.body.data.length - 1,
      );
      assert.equal(after.body.data.length, before.body.data.length - 1);
    });

    test('the client reads its own writes at once', async () => {
      const path = `/v2/shipments/${s.shipmentId}`;
      await t.request('GET', path);
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      const patch = await t.request('PATCH', path, { body: { data: { attributes: { tags: ['mine'] } } } });
      assert.equal(patch.status, 200);
      const read = await t.request('GET', path);
      assert.deepEqual(read.body.data.attributes.tags, ['mine']);

      await t.request('GET', '/v2/tracking_requests');
      const created = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'CACHE0001', scac: 'MSCU' }),
      });
      assert.equal(created.status, 201);
      const list = await t.request('GET', '/v2/tracking_requests');
      assert.ok(list.body.data.some((r: any) => r.id === created.body.data.id));
    });

    test('entries are per account: another account never gets them', async () => {
      const path = `/v2/shipments/${s.shipmentId}`;
      await t.request('GET', path);
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      const other = await t.newAccount('cache-other');
      assert.equal((await t.request('GET', path, { key: other.key })).status, 404);
    });

    test('a vessel upsert that changes nothing keeps the cache; a new vessel empties it', async () => {
      const path = `/v2/containers/${s.containerIds[0]}/transport_events?include=vessel`;
      await t.request('GET', path);
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      const vessel = await t.database.db
        .selectFrom('vessels')
        .select(['imo', 'name'])
        .where('id', '=', s.vesselId)
        .executeTakeFirstOrThrow();
      await t.database.db
        .insertInto('vessels')
        .values({ id: randomUUID(), imo: vessel.imo, name: vessel.name, name_key: null })
        .onConflict((oc) => oc.column('imo').doNothing())
        .execute();
      await new Promise((r) => setTimeout(r, 100)); // time for a notification, if one were sent
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      await t.database.db
        .insertInto('vessels')
        .values({ id: randomUUID(), imo: '9999998', name: 'New Vessel', name_key: null })
        .execute();
      const after = await until(
        () => t.request('GET', path),
        (r) => r.headers.get('x-cache') === 'miss',
      );
      assert.equal(after.headers.get('x-cache'), 'miss');
    });

    test('Cache-Control: no-cache reads the database', async () => {
      const path = `/v2/shipments/${s.shipmentId}`;
      await t.request('GET', path);
      assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
      const fresh = await t.request('GET', path, { headers: { 'cache-control': 'no-cache' } });
      assert.equal(fresh.status, 200);
      assert.equal(fresh.headers.get('x-cache'), 'miss');
    });

    test('errors are not cached', async () => {
      const path = '/v2/shipments/00000000-0000-4000-8000-000000000000';
      assert.equal((await t.request('GET', path)).status, 404);
      const again = await t.request('GET', path);
      assert.equal(again.status, 404);
      assert.notEqual(again.headers.get('x-cache'), 'hit');
    });
  });

  if (engine === 'postgres') {
    describe('response cache: the change feed connection drops [postgres]', () => {
      test('caching stops, reads stay fresh, and it resumes after the reconnect', async () => {
        const t = await startTestApp(engine);
        try {
          const s = await seedShipment(t.database.db, t.accountId, { tags: ['a'] });
          const path = `/v2/shipments/${s.shipmentId}`;
          await t.request('GET', path);
          assert.equal((await t.request('GET', path)).headers.get('x-cache'), 'hit');
          const admin = new pg.Client({ connectionString: t.database.url! });
          await admin.connect();
          await admin.query(
            `select pg_terminate_backend(pid) from pg_stat_activity
              where datname = current_database() and query ilike 'listen%'`,
          );
          // While the listener is gone, a write must not be hidden by an old entry.
          await admin.query(`update shipments set tags = '{b}' where id = $1`, [s.shipmentId]);
          await admin.end();
          const fresh = await t.request('GET', path);
          assert.deepEqual(fresh.body.data.attributes.tags, ['b']);
          // The feed reconnects by itself (100 ms back-off) and caching resumes.
          const hit = await until(
            () => t.request('GET', path),
            (r) => r.headers.get('x-cache') === 'hit',
          );
          assert.equal(hit.headers.get('x-cache'), 'hit');
          assert.deepEqual(hit.body.data.attributes.tags, ['b']);
        } finally {
          await t.close();
        }
      });
    });
  }

  describe(`response cache off [${engine}]`, () => {
    test('RESPONSE_CACHE_MB=0 answers every read from the database', async () => {
      const t = await startTestApp(engine, { RESPONSE_CACHE_MB: '0' });
      try {
        const s = await seedShipment(t.database.db, t.accountId);
        const path = `/v2/shipments/${s.shipmentId}`;
        for (let i = 0; i < 2; i++) {
          const r = await t.request('GET', path);
          assert.equal(r.status, 200);
          assert.equal(r.headers.get('x-cache'), null);
        }
      } finally {
        await t.close();
      }
    });
  });

  describe(`batched rate limits [${engine}]`, () => {
    test('one process admits exactly the limit and counts each request once', async () => {
      const t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '50' });
      try {
        const statuses: number[] = [];
        const remaining: number[] = [];
        for (let i = 0; i < 60; i++) {
          const r = await t.request('GET', '/v2/shipping_lines/MSCU');
          statuses.push(r.status);
          if (r.status === 200) remaining.push(Number(r.headers.get('x-ratelimit-remaining')));
        }
        assert.equal(statuses.filter((s) => s === 200).length, 50);
        assert.deepEqual(
          remaining,
          Array.from({ length: 50 }, (_, i) => 49 - i),
        );
        const rows = await t.database.db
          .selectFrom('rate_limit_counts')
          .select((eb) => eb.fn.sum<number>('count').as('n'))
          .where('account_id', '=', t.accountId)
          .where('bucket', '=', 'default')
          .executeTakeFirstOrThrow();
        assert.equal(Number(rows.n), 50, 'every admitted request is counted once');
      } finally {
        await t.close();
      }
    });

    test('two processes on one database never admit more than the limit together', async () => {
      const a = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '200' });
      const b = await startTestApp(
        engine,
        { RATE_LIMIT_DEFAULT_PER_MINUTE: '200' },
        { database: a.database },
      );
      try {
        let ok = 0;
        for (let i = 0; i < 150; i++) {
          const [x, y] = await Promise.all([
            a.request('GET', '/v2/shipping_lines/MSCU'),
            b.request('GET', '/v2/shipping_lines/MSCU', { key: a.key }),
          ]);
          ok += Number(x.status === 200) + Number(y.status === 200);
        }
        assert.ok(ok <= 200, `admitted ${ok}`);
        // Batches shrink near the limit, so little is left unused in the other process.
        assert.ok(ok >= 190, `admitted ${ok}`);
      } finally {
        await b.close();
        await a.close();
      }
    });
  });
}
