import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { parseChange } from '../../src/db/change-feed.ts';
import { createResponseCache } from '../../src/http/response-cache.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { type SeededShipment, seedShipment } from '../helpers/seed.ts';

// Per-resource invalidation (issue 15): the change feed names the table and ids a statement changed
// (migrations/0037) and the response cache drops only the entries that show them. Writes are made
// straight on the database, as the engine or another API process would; they reach this server's
// cache through the feed. "Nothing dropped" is checked after a later change that does drop something
// has arrived (notifications arrive in commit order), so the test does not depend on a delay.

const hit = async (t: TestApp, path: string) => (await t.request('GET', path)).headers.get('x-cache');

/** Repeats `fn` until `ok` (NOTIFY arrives a moment after the commit), at most 5 s. */
async function until(fn: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.fail(what);
}

/** Caches `path` and checks the next read is a hit. */
async function warm(t: TestApp, path: string): Promise<void> {
  assert.equal((await t.request('GET', path)).status, 200);
  assert.equal(await hit(t, path), 'hit', `${path} cached`);
}

for (const engine of ENGINES) {
  describe(`per-resource cache invalidation [${engine}]`, () => {
    let t: TestApp;
    let a: SeededShipment;
    let b: SeededShipment;
    let marker: SeededShipment; // changed last in a test: its entry's miss shows the feed caught up
    const shipment = (s: SeededShipment) => `/v2/shipments/${s.shipmentId}?include=containers`;
    const container = (s: SeededShipment) => `/v2/containers/${s.containerIds[0]}`;

    /** Changes `marker` and waits until its entry is dropped: every earlier notification arrived. */
    async function sync(): Promise<void> {
      await warm(t, shipment(marker));
      await t.database.db
        .updateTable('shipments')
        .set({ tags: [randomUUID()] })
        .where('id', '=', marker.shipmentId)
        .execute();
      await until(async () => (await hit(t, shipment(marker))) === 'miss', 'marker change arrives');
    }

    before(async () => {
      t = await startTestApp(engine);
      a = await seedShipment(t.database.db, t.accountId, { tags: ['a'] });
      b = await seedShipment(t.database.db, t.accountId, { tags: ['b'] });
      marker = await seedShipment(t.database.db, t.accountId);
    });
    after(() => t.close());

    test("a change to shipment A drops A's entries and its containers', and keeps B's", async () => {
      for (const p of [shipment(a), container(a), shipment(b), container(b)]) await warm(t, p);
      await t.database.db
        .updateTable('shipments')
        .set({ tags: ['a2'] })
        .where('id', '=', a.shipmentId)
        .execute();
      await until(async () => (await hit(t, shipment(a))) === 'miss', "A's entry dropped");
      assert.equal(await hit(t, container(a)), 'miss', "A's container shows the shipment");
      assert.equal(await hit(t, shipment(b)), 'hit');
      assert.equal(await hit(t, container(b)), 'hit');
      const fresh = await t.request('GET', shipment(a));
      assert.deepEqual(fresh.body.data.attributes.tags, ['a2']);
    });

    test("a change to A's container or to its events drops A, not B", async () => {
      for (const p of [shipment(a), shipment(b), container(b)]) await warm(t, p);
      await t.database.db
        .updateTable('containers')
        .set({ seal_number: 'SEAL-1' })
        .where('id', '=', a.containerIds[0]!)
        .execute();
      await until(async () => (await hit(t, shipment(a))) === 'miss', "A's entry dropped by its container");
      assert.equal(await hit(t, shipment(b)), 'hit');

      const events = `/v2/containers/${a.containerIds[0]}/transport_events`;
      await warm(t, events);
      await warm(t, shipment(a));
      await t.database.db
        .deleteFrom('transport_events')
        .where('id', '=', a.transportEventIds.get(a.containerIds[0]!)![0]!)
        .execute();
      await until(async () => (await hit(t, events)) === 'miss', 'the events list dropped');
      assert.equal(await hit(t, shipment(a)), 'miss', 'the shipment shows its containers');
      assert.equal(await hit(t, shipment(b)), 'hit');
      assert.equal(await hit(t, container(b)), 'hit');
    });

    test('writes that change no served value drop nothing (a refresh that found nothing new)', async () => {
      const db = t.database.db;
      const request = await db
        .selectFrom('tracking_requests')
        .select('id')
        .where('shipment_id', '=', a.shipmentId)
        .executeTakeFirstOrThrow();
      const requestPath = `/v2/tracking_requests/${request.id}`;
      for (const p of [
        shipment(a),
        container(a),
        `/v2/containers/${a.containerIds[0]}/transport_events`,
        requestPath,
      ]) {
        await warm(t, p);
      }
      // A worker's claim of the tracking request: its lease only.
      await db
        .updateTable('tracking_requests')
        .set({ lease_owner: 'worker-x', lease_expires_at: new Date(Date.now() + 60_000) })
        .where('id', '=', request.id)
        .execute();
      // What a quiet refresh writes: the lease, the next refresh time, the attempt times.
      await db
        .updateTable('shipments')
        .set({
          lease_owner: 'worker-x',
          lease_expires_at: new Date(Date.now() + 60_000),
          line_tracking_last_attempted_at: new Date(),
          line_tracking_last_succeeded_at: new Date(),
          next_refresh_at: new Date(Date.now() + 3_600_000),
        })
        .where('id', '=', a.shipmentId)
        .execute();
      await db
        .updateTable('shipments')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('id', '=', a.shipmentId)
        .execute();
      // Updates that set what was there already.
      await sql`update containers set seal_number = seal_number where shipment_id = ${a.shipmentId}`.execute(
        db,
      );
      await sql`update transport_events set event = event where shipment_id = ${a.shipmentId}`.execute(db);
      await sql`update tracking_requests set status = status where shipment_id = ${a.shipmentId}`.execute(db);
      await sync();
      assert.equal(await hit(t, shipment(a)), 'hit');
      assert.equal(await hit(t, container(a)), 'hit');
      assert.equal(await hit(t, `/v2/containers/${a.containerIds[0]}/transport_events`), 'hit');
      assert.equal(await hit(t, requestPath), 'hit', 'a claim is not a change');
      // What the attempt then writes is.
      await db
        .updateTable('tracking_requests')
        .set({ lease_owner: null, lease_expires_at: null, failed_reason: 'shipping_line_unreachable' })
        .where('id', '=', request.id)
        .execute();
      await until(async () => (await hit(t, requestPath)) === 'miss', 'the attempt drops the request');
    });

    test("a list is dropped by a create in its account, not by another account's", async () => {
      const list = '/v2/shipments?include=containers&page[size]=30';
      await warm(t, list);
      await warm(t, shipment(b));
      const other = await t.newAccount('cache-list-other');
      const theirs = await seedShipment(t.database.db, other.accountId);
      // Their change arrives after their create: once it dropped their entry, ours is judged.
      const path = `/v2/shipments/${theirs.shipmentId}`;
      const theirHit = async () => (await t.request('GET', path, { key: other.key })).headers.get('x-cache');
      await t.request('GET', path, { key: other.key });
      await t.database.db
        .updateTable('shipments')
        .set({ tags: ['x'] })
        .where('id', '=', theirs.shipmentId)
        .execute();
      await until(async () => (await theirHit()) === 'miss', 'their change arrives');
      assert.equal(await hit(t, list), 'hit', "another account's create leaves the list");
      await seedShipment(t.database.db, t.accountId);
      await until(async () => (await hit(t, list)) === 'miss', 'the list dropped by a create');
      assert.equal(await hit(t, shipment(b)), 'hit', 'a create leaves the other shipments');
    });

    test('a statement naming too many ids for one payload falls back to the whole account', async () => {
      const payloads: string[] = [];
      const stop = await t.database.listen(['tracker_changes'], {
        onNotify: (_c, p) => payloads.push(p),
        onState: () => {},
      });
      try {
        await warm(t, shipment(b));
        const containerId = a.containerIds[0]!;
        // 300 events in one statement: 300 ids on update, more than a payload holds.
        await sql`insert into transport_events (id, account_id, shipment_id, container_id, key, event, data_source)
                  select gen_random_uuid(), ${t.accountId}, ${a.shipmentId}, ${containerId},
                         'bulk-' || g, 'container.transport.vessel_departed', 'shipping_line'
                    from generate_series(1, 300) g`.execute(t.database.db);
        await until(async () => payloads.length > 0, 'the insert notifies');
        const insert = parseChange(payloads[0]!);
        assert.equal(insert.accountId, t.accountId);
        assert.deepEqual(insert.resources?.table, 'transport_events');
        assert.deepEqual(
          new Set(insert.resources?.ids),
          new Set([containerId, a.shipmentId]),
          'an insert names the owners only',
        );
        await until(async () => (await hit(t, shipment(a))) === 'miss', 'A dropped');
        assert.equal(await hit(t, shipment(b)), 'hit', 'a bounded payload keeps B');

        payloads.length = 0;
        await sql`update transport_events set event = 'container.transport.vessel_arrived'
                   where key like 'bulk-%' and account_id = ${t.accountId}`.execute(t.database.db);
        await until(async () => payloads.length > 0, 'the update notifies');
        assert.deepEqual(payloads, [t.accountId], 'too many ids: the bare account id');
        await until(
          async () => (await hit(t, shipment(b))) === 'miss',
          'the fallback drops the whole account',
        );
        for (const p of payloads) assert.ok(Buffer.byteLength(p) < 8000);

        // A bulk statement (more than 2000 rows) names its account only, whatever its ids.
        payloads.length = 0;
        await sql`insert into transport_events (id, account_id, shipment_id, container_id, key, event, data_source)
                  select gen_random_uuid(), ${t.accountId}, ${a.shipmentId}, ${containerId},
                         'bulk2-' || g, 'container.transport.vessel_departed', 'shipping_line'
                    from generate_series(1, 2001) g`.execute(t.database.db);
        await until(async () => payloads.length > 0, 'the bulk insert notifies');
        assert.deepEqual(payloads, [t.accountId]);
      } finally {
        await stop();
      }
    });
  });
}

describe('response cache: tags and races (no database)', () => {
  const res = { body: '{}', contentType: 'application/json' };
  test('a read that raced a change to one of its tags is not stored; others are', () => {
    const cache = createResponseCache({ maxBytes: 1 << 20, ttlMs: 60_000 });
    cache.setEnabled(true);
    const token = cache.begin('acct');
    cache.invalidateTags('acct', ['s1']);
    cache.set('acct', '/a', token, res, ['s1', 'c1']);
    assert.equal(cache.get('acct', '/a'), undefined, 'raced: not stored');
    cache.set('acct', '/b', token, res, ['s2']);
    assert.ok(cache.get('acct', '/b'), 'other tags: stored');
    cache.invalidateTags('other-account', ['s2']);
    assert.ok(cache.get('acct', '/b'), 'tags are per account');
    cache.invalidateTags('acct', ['s2']);
    assert.equal(cache.get('acct', '/b'), undefined);
    assert.equal(cache.stats().tags, 0, 'the tag index is emptied with its entries');
  });

  test('a read older than the remembered invalidations is not stored', () => {
    const cache = createResponseCache({ maxBytes: 1 << 20, ttlMs: 60_000 });
    cache.setEnabled(true);
    const token = cache.begin('acct');
    for (let i = 0; i < 25_000; i++) cache.invalidateTags('acct', [`t${i}`]);
    cache.set('acct', '/a', token, res, ['unrelated']);
    assert.equal(cache.get('acct', '/a'), undefined);
    cache.set('acct', '/a', cache.begin('acct'), res, ['unrelated']);
    assert.ok(cache.get('acct', '/a'));
  });

  test('when full, a key asked for less often than the entry it would evict is not admitted', () => {
    // Room for 140 answers of 200 ASCII characters (a byte each plus ~205 of key and overheads: 56,900).
    const cache = createResponseCache({ maxBytes: 57_000, ttlMs: 60_000 });
    cache.setEnabled(true);
    const body = { body: 'x'.repeat(200), contentType: 'application/json' };
    const store = (key: string) => {
      const miss = cache.get('acct', key) === undefined;
      if (miss && cache.admits('acct', key, body.body)) cache.set('acct', key, cache.begin('acct'), body, []);
      return miss;
    };
    const keys = Array.from({ length: 140 }, (_, i) => `/${i}`);
    for (const k of keys) store(k);
    assert.equal(cache.stats().entries, 140, 'while there is room, every answer is stored');
    // A key read once (as random reads over more data than fits are) would evict /0, read once too.
    assert.equal(cache.admits('acct', '/new', body.body), false);
    store('/new');
    assert.equal(cache.get('acct', '/0')?.body, body.body, 'the older entry stays');
    // A key read again and again (a hot URL) is admitted over the least recently used entry.
    for (let i = 0; i < 5; i++) store('/hot');
    assert.ok(cache.get('acct', '/hot'), 'the hot key is stored');
    assert.equal(cache.stats().entries, 140);
  });

  test('an answer over a 128th of the cache is never stored; ASCII counts a byte a character, other text two', () => {
    const cache = createResponseCache({ maxBytes: 128_000, ttlMs: 60_000 });
    cache.setEnabled(true);
    const json = { contentType: 'application/json' };
    assert.equal(
      cache.admits('acct', '/small', 'x'.repeat(600)),
      true,
      '600 bytes (V8 keeps ASCII at one a character)',
    );
    assert.equal(cache.admits('acct', '/big', 'x'.repeat(1_200)), false, '1,200 bytes: over 1,000');
    assert.equal(cache.admits('acct', '/big', Buffer.from('x'.repeat(1_200))), false, 'encoded, the same');
    assert.equal(cache.admits('acct', '/wide', 'é'.repeat(600)), false, 'not ASCII: two bytes a character');
    assert.equal(
      cache.admits('acct', '/wide', Buffer.from('é'.repeat(300))),
      false,
      'encoded: two bytes a byte',
    );
    assert.equal(cache.admits('acct', '/narrow', Buffer.from('é'.repeat(150))), true);
    cache.set('acct', '/big', cache.begin('acct'), { body: 'x'.repeat(1_200), ...json }, []);
    assert.equal(cache.get('acct', '/big'), undefined);
    cache.set('acct', '/enc', cache.begin('acct'), { body: Buffer.from('x'.repeat(600)), ...json }, []);
    assert.ok(Buffer.isBuffer(cache.get('acct', '/enc')?.body), 'an encoded answer is served as stored');
  });
});
