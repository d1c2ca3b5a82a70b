import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { MAX_EVENTS_PER_CONTAINER, type SeedProgress, type SeedResult, seed } from '../../src/cli/seed.ts';
import { STATUS_AFTER } from '../../src/engine/event-mapping.ts';
import { portByLocode, shippingLineByScac, terminalById } from '../../src/reference/data.ts';
import { isValidContainerNumber } from '../../src/util/iso6346.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

// The bulk seeding command at small scale, on each engine: what it writes, that the API serves
// it, and that the rows look like tracked shipments.

const SHIPMENTS = 12;

for (const engine of ENGINES) {
  describe(`seed [${engine}]`, () => {
    let t: TestApp;
    let other: { accountId: string; key: string };
    let result: SeedResult;
    const progress: SeedProgress[] = [];

    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '10000' });
      other = await t.newAccount('other');
      result = await seed(
        t.database.db,
        {
          accountId: t.accountId,
          shipments: SHIPMENTS,
          containersPerShipment: 3,
          eventsPerContainer: 40,
          batchSize: 5,
        },
        (p) => progress.push(p),
      );
    });
    after(() => t.close());

    const count = async (
      table: 'shipments' | 'containers' | 'transport_events' | 'tracking_requests',
      account: string,
    ) =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('account_id', '=', account)
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('writes the asked counts, in batches, reporting progress', async () => {
      assert.equal(result.shipments, SHIPMENTS);
      assert.equal(result.trackingRequests, SHIPMENTS);
      assert.equal(result.containers, SHIPMENTS * 3);
      assert.equal(result.events, SHIPMENTS * 3 * 40);
      assert.equal(await count('shipments', t.accountId), SHIPMENTS);
      assert.equal(await count('tracking_requests', t.accountId), SHIPMENTS);
      assert.equal(await count('containers', t.accountId), SHIPMENTS * 3);
      assert.equal(await count('transport_events', t.accountId), SHIPMENTS * 3 * 40);
      assert.equal(await count('shipments', other.accountId), 0);
      assert.equal(progress.length, 3, 'three batches of at most 5 shipments');
      const last = progress.at(-1)!;
      assert.equal(last.shipments, SHIPMENTS);
      assert.equal(last.rows, last.totalRows);
      assert.equal(last.etaMs, 0);
    });

    test('the API lists and gets the seeded data', async () => {
      const list = await t.request('GET', '/v2/shipments?page[size]=30');
      assert.equal(list.status, 200);
      assert.equal(list.body.meta.total, SHIPMENTS);
      const id = list.body.data[0].id;
      const one = await t.request('GET', `/v2/shipments/${id}?include=containers`);
      assert.equal(one.status, 200);
      const containers = one.body.included.filter((r: any) => r.type === 'container');
      assert.equal(containers.length, 3);
      const events = await t.request(
        'GET',
        `/v2/containers/${containers[0].id}/transport_events?include=location,vessel`,
      );
      assert.equal(events.status, 200);
      assert.equal(events.body.meta.total, 40);
      const times = events.body.data.map((e: any) => Date.parse(e.attributes.timestamp));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
      );
      assert.ok(events.body.included.some((r: any) => r.type === 'port'));
      assert.ok(events.body.included.some((r: any) => r.type === 'vessel'));
      const theirs = await t.request('GET', `/v2/shipments/${id}`, { key: other.key });
      assert.equal(theirs.status, 404);
    });

    test('rows are realistic: ISO 6346 numbers, known lines and locodes, ordered past events', async () => {
      const db = t.database.db;
      const shipments = await db
        .selectFrom('shipments')
        .selectAll()
        .where('account_id', '=', t.accountId)
        .execute();
      for (const s of shipments) {
        assert.ok(shippingLineByScac(s.scac), s.scac);
        for (const l of [s.port_of_lading_locode, s.port_of_discharge_locode, ...s.transshipment_locodes])
          assert.ok(l && portByLocode(l), `unknown locode ${l}`);
        assert.ok(
          s.pod_terminal_id && terminalById(s.pod_terminal_id)?.port_locode === s.port_of_discharge_locode,
        );
        assert.ok(s.pol_etd_at! < s.pod_eta_at!);
        assert.ok(s.created_at < s.pol_etd_at!);
        assert.ok(s.next_refresh_at! > new Date(), 'due for refresh later');
      }
      assert.equal(new Set(shipments.map((s) => s.normalized_number)).size, SHIPMENTS);
      const containers = await db
        .selectFrom('containers')
        .selectAll()
        .where('account_id', '=', t.accountId)
        .execute();
      for (const c of containers) assert.ok(isValidContainerNumber(c.number), c.number);
      const events = await db
        .selectFrom('transport_events')
        .selectAll()
        .where('account_id', '=', t.accountId)
        .orderBy('container_id')
        .orderBy('id')
        .execute();
      const vessels = new Set((await db.selectFrom('vessels').select('id').execute()).map((v) => v.id));
      const now = Date.now();
      let previousContainer = '';
      let previousAt = 0;
      for (const e of events) {
        assert.ok(e.event in STATUS_AFTER, e.event);
        assert.ok(
          e.location_locode && portByLocode(e.location_locode),
          `unknown locode ${e.location_locode}`,
        );
        assert.ok(e.timestamp!.getTime() < now, 'actual events are in the past');
        if (e.vessel_id) assert.ok(vessels.has(e.vessel_id));
        if (previousContainer === e.container_id)
          assert.ok(e.timestamp!.getTime() > previousAt, `${e.key} out of order`);
        previousContainer = e.container_id;
        previousAt = e.timestamp!.getTime();
      }
      // The last of 40 events is the POD's "available"; every container says so.
      assert.ok(containers.every((c) => c.current_status === 'available' && c.pod_arrived_at !== null));
      const unlinked = await sql<{ n: number }>`
        select count(*)::int as n from tracking_requests t left join shipments s on s.id = t.shipment_id
         where t.account_id = ${t.accountId} and (s.id is null or t.request_number <> s.normalized_number)`.execute(
        db,
      );
      assert.equal(unlinked.rows[0]!.n, 0);
    });

    test('seeding again adds distinct shipments; options are validated', async () => {
      const again = await seed(t.database.db, {
        accountId: other.accountId,
        shipments: 2,
        containersPerShipment: 1,
        eventsPerContainer: 0,
        refresh: false,
      });
      assert.equal(again.events, 0);
      assert.equal(await count('shipments', other.accountId), 2);
      const due = await t.database.db
        .selectFrom('shipments')
        .select('next_refresh_at')
        .where('account_id', '=', other.accountId)
        .execute();
      assert.ok(due.every((s) => s.next_refresh_at === null));
      await assert.rejects(seed(t.database.db, { accountId: t.accountId, shipments: 0 }), RangeError);
      await assert.rejects(
        seed(t.database.db, {
          accountId: t.accountId,
          shipments: 1,
          eventsPerContainer: MAX_EVENTS_PER_CONTAINER + 1,
        }),
        RangeError,
      );
      await assert.rejects(
        seed(t.database.db, { accountId: '00000000-0000-4000-8000-000000000000', shipments: 1 }),
        /No account/,
      );
    });
  });
}
