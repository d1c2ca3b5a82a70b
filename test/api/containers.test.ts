import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { portByLocode } from '../../src/reference/data.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { POD_TERMINAL, POL_TERMINAL, type SeededShipment, seedShipment, VESSEL } from '../helpers/seed.ts';

const ids = (list: Array<{ id: string }>) => list.map((r) => r.id);

for (const engine of ENGINES) {
  describe(`containers [${engine}]`, () => {
    let t: TestApp;
    let other: { accountId: string; key: string };
    let s1: SeededShipment;
    let s2: SeededShipment;
    let b1: SeededShipment;

    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '10000' });
      other = await t.newAccount('other');
      const db = t.database.db;
      s1 = await seedShipment(db, t.accountId, {
        createdAt: new Date('2024-01-01T00:00:00Z'),
        updatedAt: new Date('2024-02-01T00:00:00Z'),
      });
      s2 = await seedShipment(db, t.accountId, {
        createdAt: new Date('2024-03-01T00:00:00Z'),
        updatedAt: new Date('2024-01-10T00:00:00Z'),
        containers: ['CSQU3054383'],
      });
      b1 = await seedShipment(db, other.accountId, { containers: ['CSQU3054383'] });
    });
    after(() => t.close());

    test('list: newest first, paged, with links and meta; another account’s never listed', async () => {
      const res = await t.request('GET', '/v2/containers?page[size]=2');
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.total, 3);
      assert.equal(res.body.meta.size, 2);
      assert.equal(res.body.data.length, 2);
      assert.equal(res.body.data[0].id, s2.containerIds[0]);
      assert.ok(res.body.links.next.includes('page%5Bnumber%5D=2'));
      assert.ok(res.body.links.last.includes('page%5Bnumber%5D=2'));
      const p2 = await t.request('GET', res.body.links.next);
      assert.equal(p2.body.data.length, 1);
      const all = [...ids(res.body.data), ...ids(p2.body.data)].sort();
      assert.deepEqual(all, [...s1.containerIds, ...s2.containerIds].sort());
      const theirs = await t.request('GET', '/v2/containers', { key: other.key });
      assert.deepEqual(ids(theirs.body.data), b1.containerIds);
    });

    test('list: filters and sort', async () => {
      const list = async (qs: string) => {
        const r = await t.request('GET', `/v2/containers?${qs}`);
        assert.equal(r.status, 200, qs);
        return ids(r.body.data);
      };
      assert.deepEqual(
        (await list(`filter[shipment_id]=${s1.shipmentId}`)).sort(),
        [...s1.containerIds].sort(),
      );
      assert.deepEqual(await list(`filter[shipment_id]=${b1.shipmentId}`), []);
      assert.deepEqual(await list('filter[number]=csqu3054383'), s2.containerIds);
      assert.deepEqual(await list(`number=${s1.containerNumbers[1]}`), [s1.containerIds[1]]);
      assert.deepEqual(
        (await list('filter[updated_at][start]=2024-01-20')).sort(),
        [...s1.containerIds].sort(),
      );
      assert.deepEqual(await list('filter[updated_at][end]=2024-01-20'), s2.containerIds);
      const asc = await list('sort=created_at');
      assert.equal(asc[2], s2.containerIds[0]);
      const upd = await list('sort=updated_at');
      assert.equal(upd[0], s2.containerIds[0]);
      const updDesc = await list('sort=-updated_at');
      assert.equal(updDesc[2], s2.containerIds[0]);
    });

    test('list: include shipment, pod_terminal and transport_events, only the caller’s', async () => {
      const res = await t.request('GET', '/v2/containers?include=shipment,pod_terminal,transport_events');
      assert.equal(res.status, 200);
      const inc = res.body.included as any[];
      const shipments = inc.filter((r) => r.type === 'shipment');
      assert.deepEqual(ids(shipments).sort(), [s1.shipmentId, s2.shipmentId].sort());
      assert.deepEqual(ids(inc.filter((r) => r.type === 'terminal')), [POD_TERMINAL.id]);
      const events = inc.filter((r) => r.type === 'transport_event');
      const expected = [...s1.containerIds, ...s2.containerIds].flatMap(
        (id) => s1.transportEventIds.get(id) ?? s2.transportEventIds.get(id)!,
      );
      assert.deepEqual(ids(events).sort(), expected.sort());
      for (const c of res.body.data) {
        const own = s1.transportEventIds.get(c.id) ?? s2.transportEventIds.get(c.id)!;
        assert.deepEqual(
          c.relationships.transport_events.data.map((d: any) => d.id),
          own,
        );
      }
      for (const r of inc) assert.ok(![b1.shipmentId, ...b1.containerIds].includes(r.id));
      const bad = await t.request('GET', '/v2/containers?include=raw_events');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].source.parameter, 'include');
    });

    test('get: attributes, time zones, equipment, relationships', async () => {
      const [returnedId, openTopId] = s1.containerIds as [string, string];
      const res = await t.request('GET', `/v2/containers/${returnedId}`);
      assert.equal(res.status, 200);
      const d = res.body.data;
      assert.equal(d.type, 'container');
      assert.equal(d.links.self, `/v2/containers/${returnedId}`);
      const a = d.attributes;
      assert.equal(a.number, s1.containerNumbers[0]);
      assert.deepEqual(a.ref_numbers, []);
      assert.equal(a.equipment_type, 'dry');
      assert.equal(a.equipment_length, 40);
      assert.equal(a.equipment_height, 'high_cube');
      // DCSA T&T carries no cargo weight, so the engine never sets one.
      assert.equal(a.weight_in_lbs, null);
      assert.equal(a.seal_number, 'HL4471223');
      assert.equal(a.created_at, '2024-01-01T00:00:00.000Z');
      assert.equal(a.updated_at, '2024-02-01T00:00:00.000Z');
      assert.equal(a.pod_arrived_at, '2024-04-08T06:00:00.000Z');
      assert.equal(a.pod_discharged_at, '2024-04-08T20:00:00.000Z');
      assert.equal(a.pod_full_out_at, '2024-04-10T09:00:00.000Z');
      assert.equal(a.empty_terminated_at, '2024-04-15T12:30:00.000Z');
      assert.equal(a.empty_terminated_timezone, 'Europe/Amsterdam');
      assert.equal(a.pod_timezone, 'Europe/Amsterdam');
      assert.equal(a.final_destination_timezone, 'Europe/Berlin');
      assert.equal(a.pod_last_tracking_request_at, '2024-04-16T00:00:00.000Z');
      assert.equal(a.shipment_last_tracking_request_at, '2024-04-16T00:00:00.000Z');
      assert.equal(a.current_status, 'empty_returned');
      assert.equal(a.availability_known, false);
      assert.equal(a.available_for_pickup, null);
      assert.deepEqual(a.holds_at_pod_terminal, []);
      assert.deepEqual(a.fees_at_pod_terminal, []);
      assert.equal(a.pickup_lfd, null);
      assert.deepEqual(a.import_deadlines, {
        pickup_lfd_terminal: null,
        pickup_lfd_rail: null,
        pickup_lfd_line: null,
      });
      for (const k of ['pod_rail_loaded_at', 'pod_rail_departed_at', 'ind_ata_at', 'ind_rail_unloaded_at']) {
        assert.equal(a[k], null, k);
      }
      // The carrier's estimate for the truck leg on to Duisburg.
      assert.equal(a.ind_eta_at, '2024-04-12T06:00:00.000Z');
      const r = d.relationships;
      assert.deepEqual(r.shipment.data, { type: 'shipment', id: s1.shipmentId });
      assert.deepEqual(r.pod_terminal.data, { type: 'terminal', id: POD_TERMINAL.id });
      assert.deepEqual(r.pickup_facility, { data: null });
      assert.deepEqual(
        r.transport_events.data.map((x: any) => x.id),
        s1.transportEventIds.get(returnedId),
      );
      assert.equal(r.transport_events.links.related, `/v2/containers/${returnedId}/transport_events`);
      assert.deepEqual(r.raw_events, { links: { related: `/v2/containers/${returnedId}/raw_events` } });

      const open = (await t.request('GET', `/v2/containers/${openTopId}`)).body.data.attributes;
      assert.equal(open.equipment_type, 'open top');
      assert.equal(open.weight_in_lbs, null);
      assert.equal(open.empty_terminated_at, null);
      assert.equal(open.empty_terminated_timezone, null);
      assert.equal(open.current_status, 'picked_up');

      const inc = await t.request('GET', `/v2/containers/${returnedId}?include=shipment,transport_events`);
      assert.equal(inc.body.included.filter((x: any) => x.type === 'shipment').length, 1);
      assert.equal(inc.body.included.filter((x: any) => x.type === 'transport_event').length, 10);
    });

    test('get: unknown, malformed and another account’s ids are 404', async () => {
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', b1.containerIds[0]]) {
        for (const suffix of ['', '/transport_events', '/raw_events']) {
          const r = await t.request('GET', `/v2/containers/${id}${suffix}`);
          assert.equal(r.status, 404, `${id}${suffix}`);
          assert.equal(r.body.errors[0].status, '404');
        }
      }
      const ok = await t.request('GET', `/v2/containers/${b1.containerIds[0]}`, { key: other.key });
      assert.equal(ok.status, 200);
    });

    test('transport events: full history in order, links, paging, includes', async () => {
      const id = s1.containerIds[0]!;
      const path = `/v2/containers/${id}/transport_events`;
      const res = await t.request('GET', path);
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body.data), s1.transportEventIds.get(id));
      assert.deepEqual(
        res.body.data.map((e: any) => e.attributes.event),
        s1.transportEventNames.get(id),
      );
      // Same instant: key order. (The engine never writes an actual event without a time.)
      const names = res.body.data.map((e: any) => e.attributes.event);
      assert.ok(
        names.indexOf('container.transport.vessel_arrived') <
          names.indexOf('container.transport.vessel_berthed'),
      );
      assert.equal(names.at(-1), 'container.transport.empty_in');
      assert.equal(res.body.meta.total, 10);
      assert.equal(res.body.meta.size, 100);
      assert.equal(res.body.links.self, path);
      assert.equal(res.body.links.current, `${path}?page%5Bnumber%5D=1&page%5Bsize%5D=100`);

      const loaded = res.body.data.find(
        (e: any) => e.attributes.event === 'container.transport.vessel_loaded',
      );
      assert.deepEqual(loaded.attributes, {
        event: 'container.transport.vessel_loaded',
        created_at: loaded.attributes.created_at,
        voyage_number: '412W',
        timestamp: '2024-03-06T14:10:00.000Z',
        timezone: 'Asia/Shanghai',
        location_locode: 'CNYTN',
        data_source: 'shipping_line',
        invalidated_at: null,
        value: null,
      });
      assert.deepEqual(loaded.relationships.shipment.data, { type: 'shipment', id: s1.shipmentId });
      assert.deepEqual(loaded.relationships.container.data, { type: 'container', id });
      assert.deepEqual(loaded.relationships.location.data, { type: 'port', id: portByLocode('CNYTN')!.id });
      assert.deepEqual(loaded.relationships.terminal.data, { type: 'terminal', id: POL_TERMINAL.id });
      assert.deepEqual(loaded.relationships.vessel.data, { type: 'vessel', id: s1.vesselId });
      const gate = res.body.data.find((e: any) => e.attributes.event === 'container.transport.empty_out');
      assert.deepEqual(gate.relationships.vessel, { data: null });
      assert.deepEqual(gate.relationships.terminal, { data: null });
      assert.equal(gate.attributes.voyage_number, null);

      const p2 = await t.request('GET', `${path}?page[size]=3&page[number]=2&include=vessel`);
      assert.equal(p2.status, 200);
      assert.deepEqual(ids(p2.body.data), s1.transportEventIds.get(id)!.slice(3, 6));
      assert.equal(p2.body.links.self, `${path}?page[size]=3&page[number]=2&include=vessel`);
      assert.ok(p2.body.links.current.includes('page%5Bnumber%5D=1'));
      assert.ok(p2.body.links.current.includes('include=vessel'));
      assert.ok(p2.body.links.next.includes('page%5Bnumber%5D=3'));
      assert.ok(p2.body.links.prev.includes('page%5Bnumber%5D=1'));
      assert.ok(p2.body.links.last.includes('page%5Bnumber%5D=4'));
      assert.equal(p2.body.meta.total, 10);
      assert.deepEqual(
        p2.body.included.map((v: any) => [v.type, v.attributes.imo]),
        [['vessel', VESSEL.imo]],
      );

      const inc = await t.request('GET', `${path}?include=shipment,container,location,terminal,vessel`);
      const types = inc.body.included.map((r: any) => r.type).sort();
      assert.deepEqual(types, ['container', 'port', 'port', 'shipment', 'terminal', 'terminal', 'vessel']);
      const container = inc.body.included.find((r: any) => r.type === 'container');
      assert.equal(container.id, id);

      for (const qs of ['include=nope', 'page[size]=0']) {
        const bad = await t.request('GET', `${path}?${qs}`);
        assert.equal(bad.status, 400, qs);
      }
      // Unknown parameters are ignored and an oversized page is capped, as the reference does.
      for (const qs of ['page[size]=101', 'filter[event]=x', 'sort=timestamp']) {
        assert.equal((await t.request('GET', `${path}?${qs}`)).status, 200, qs);
      }
      const one = await t.request('GET', `/v2/transport_events/${loaded.id}?include=location`);
      assert.equal(one.status, 200);
      assert.equal(one.body.data.id, loaded.id);
      assert.equal(one.body.data.links.self, `/v2/transport_events/${loaded.id}`);
      assert.equal(one.body.included[0].attributes.code, 'CNYTN');
      const theirs = await t.request('GET', `/v2/transport_events/${loaded.id}`, { key: other.key });
      assert.equal(theirs.status, 404);
    });

    test('raw events: this container’s and the shared ones, by time, payload as received', async () => {
      const id = s1.containerIds[0]!;
      const res = await t.request('GET', `/v2/containers/${id}/raw_events`);
      assert.equal(res.status, 200);
      const data = res.body.data as any[];
      // 16 events: 8 of the shipment and its vessel calls + 8 of this container; none of the other's.
      assert.equal(data.length, 16);
      assert.equal(res.body.meta.total, 16);
      const times = data.map((r) => r.attributes.timestamp);
      assert.deepEqual(times, [...times].sort());
      assert.deepEqual(
        data.map((r) => r.attributes.index),
        data.map((_, i) => i),
      );
      for (const r of data) {
        assert.equal(r.type, 'raw_event');
        const original = s1.rawPayloads.get(r.attributes.payload.eventID);
        assert.deepEqual(r.attributes.payload, original);
        assert.ok(
          r.attributes.payload.equipmentReference === undefined ||
            r.attributes.payload.equipmentReference === s1.containerNumbers[0],
        );
      }
      const byOriginal = Object.fromEntries(data.map((r) => [r.attributes.original_event, r]));
      const load = byOriginal['EQUIPMENT LOAD LADEN'];
      assert.equal(load.attributes.event, 'vessel_loaded');
      assert.equal(load.attributes.estimated, false);
      assert.equal(load.attributes.actual_at, '2024-03-06T14:10:00.000Z');
      assert.equal(load.attributes.estimated_at, null);
      assert.equal(load.attributes.timezone, 'Asia/Shanghai');
      assert.equal(load.attributes.location_locode, 'CNYTN');
      assert.equal(load.attributes.location_name, 'Yantian International Container Terminal');
      assert.equal(load.attributes.vessel_name, VESSEL.name);
      assert.equal(load.attributes.vessel_imo, VESSEL.imo);
      assert.equal(load.attributes.voyage_number, '412W');
      assert.deepEqual(load.relationships.vessel.data, { type: 'vessel', id: s1.vesselId });
      assert.deepEqual(load.relationships.location.data, { type: 'port', id: portByLocode('CNYTN')!.id });
      assert.equal(byOriginal['EQUIPMENT GTOT EMPTY'].attributes.event, 'empty_out');
      assert.equal(byOriginal['EQUIPMENT GTOT EMPTY'].attributes.location_name, 'Yantian Empty Depot');
      assert.equal(byOriginal['TRANSPORT DEPA'].attributes.event, 'vessel_departed');
      const eta = data.find((r) => r.attributes.payload.eventID === `${s1.number}-eta-2`);
      assert.equal(eta.attributes.estimated, true);
      // An estimated arrival at the POD has the product's name too (issue 28), and when it will occur.
      assert.equal(eta.attributes.event, 'vessel_arrived');
      assert.equal(eta.attributes.will_occur_at, '2024-04-08T06:00:00.000Z');
      assert.equal(eta.attributes.data_source, 'shipping_line');
      assert.equal(eta.attributes.data_provider_code, 'HLCU');
      assert.deepEqual(eta.relationships.container.data, { type: 'container', id });
      const inlandEta = data.find((r) => r.attributes.payload.eventID === `${s1.number}-inland-eta`);
      if (inlandEta) assert.notEqual(inlandEta.attributes.event, 'transshipment_arrived');
      assert.equal(eta.attributes.estimated_at, '2024-04-08T06:00:00.000Z');
      assert.equal(eta.attributes.actual_at, null);
      const conf = byOriginal['SHIPMENT CONF'];
      assert.equal(conf.attributes.event, null);
      assert.deepEqual(conf.relationships.location, { data: null });
      assert.deepEqual(conf.relationships.vessel, { data: null });

      const other2 = await t.request(
        'GET',
        `/v2/containers/${s1.containerIds[1]}/raw_events?page[size]=2&page[number]=2`,
      );
      assert.equal(other2.status, 200);
      assert.equal(other2.body.meta.total, 15);
      assert.deepEqual(
        other2.body.data.map((r: any) => r.attributes.index),
        [2, 3],
      );
      assert.ok(other2.body.links.prev);
      // raw_events takes no include: the parameter is ignored, as the reference does.
      const extra = await t.request('GET', `/v2/containers/${id}/raw_events?include=vessel`);
      assert.equal(extra.status, 200);
    });

    test('refresh: 200 with message, shipment due now, 422 when stopped, 404 for others', async () => {
      const db = t.database.db;
      const id = s1.containerIds[0]!;
      const res = await t.request('PATCH', `/v2/containers/${id}/refresh`);
      assert.equal(res.status, 200);
      assert.equal(res.body.message, 'Started refresh for Shipping line');
      assert.equal(res.body.data.id, id);
      assert.equal(res.body.data.type, 'container');
      assert.deepEqual(res.body.meta, { refresh_queued: true });
      assert.equal(res.headers.get('x-ratelimit-limit'), '10');
      const row = await db
        .selectFrom('shipments')
        .select(['next_refresh_at', 'updated_at'])
        .where('id', '=', s1.shipmentId)
        .executeTakeFirstOrThrow();
      assert.ok(row.next_refresh_at && Math.abs(row.next_refresh_at.getTime() - Date.now()) < 60_000);
      assert.equal(row.updated_at.toISOString(), '2024-02-01T00:00:00.000Z');

      const stopped = await seedShipment(db, t.accountId, {
        stopped: { at: new Date('2024-05-01T00:00:00Z'), reason: 'past_arrival_window' },
      });
      const refused = await t.request('PATCH', `/v2/containers/${stopped.containerIds[0]}/refresh`);
      assert.equal(refused.status, 422);
      assert.equal(refused.body.errors[0].code, 'tracking_stopped');
      assert.match(refused.body.errors[0].detail, /resume_tracking/);
      const still = await db
        .selectFrom('shipments')
        .select('next_refresh_at')
        .where('id', '=', stopped.shipmentId)
        .executeTakeFirstOrThrow();
      assert.equal(still.next_refresh_at, null);

      assert.equal((await t.request('PATCH', `/v2/containers/${b1.containerIds[0]}/refresh`)).status, 404);
      const noId = await t.request('PATCH', '/v2/containers');
      assert.equal(noId.status, 405);
      assert.equal(noId.headers.get('allow'), 'GET');
    });

    test('refresh has its own rate-limit bucket and wakes the worker', async () => {
      const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_REFRESH_PER_MINUTE: '2' });
      const woken: string[] = [];
      const app = await buildApp({
        config,
        database: t.database,
        baseUrl: '',
        notifyWork: (kind) => woken.push(kind),
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const addr = app.server.address();
        const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
        // Rate-limit counts live in the shared database: a fresh account starts from zero.
        const acct = await t.newAccount('refresher');
        const mine = await seedShipment(t.database.db, acct.accountId);
        const mineCall = () =>
          fetch(`${base}/v2/containers/${mine.containerIds[0]}/refresh`, {
            method: 'PATCH',
            headers: { authorization: `Token ${acct.key}` },
          });
        assert.equal((await mineCall()).status, 200);
        assert.equal((await mineCall()).status, 200);
        const third = await mineCall();
        assert.equal(third.status, 429);
        assert.ok(Number(third.headers.get('retry-after')) > 0);
        const body = (await third.json()) as any;
        assert.equal(body.errors[0].code, 'rate_limited');
        assert.match(body.errors[0].detail, /container refresh/);
        // Other endpoints are not limited by the refresh bucket.
        const get = await fetch(`${base}/v2/containers/${mine.containerIds[0]}`, {
          headers: { authorization: `Token ${acct.key}` },
        });
        assert.equal(get.status, 200);
        assert.deepEqual(woken, ['refresh', 'refresh']);
      } finally {
        await app.close();
      }
    });
  });
}
