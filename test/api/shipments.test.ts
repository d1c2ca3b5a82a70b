import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portByLocode } from '../../src/reference/data.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { POD_TERMINAL, type SeededShipment, seedShipment, VESSEL } from '../helpers/seed.ts';

const ids = (list: Array<{ id: string }>) => list.map((r) => r.id);

for (const engine of ENGINES) {
  describe(`shipments [${engine}]`, () => {
    let t: TestApp;
    let other: { accountId: string; key: string };
    // Account A: three shipments, oldest first. Account B: one.
    let a1: SeededShipment;
    let a2: SeededShipment;
    let a3: SeededShipment;
    let b1: SeededShipment;

    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '10000' });
      other = await t.newAccount('other');
      const db = t.database.db;
      a1 = await seedShipment(db, t.accountId, {
        createdAt: new Date('2024-01-01T00:00:00Z'),
        updatedAt: new Date('2024-03-01T00:00:00Z'),
        refNumbers: ['PO-111'],
        tags: ['hot'],
      });
      a2 = await seedShipment(db, t.accountId, {
        createdAt: new Date('2024-02-01T00:00:00Z'),
        updatedAt: new Date('2024-02-01T00:00:00Z'),
        stopped: { at: new Date('2024-05-01T00:00:00Z'), reason: 'all_containers_terminated' },
      });
      a3 = await seedShipment(db, t.accountId, {
        createdAt: new Date('2024-03-01T00:00:00Z'),
        updatedAt: new Date('2024-01-15T00:00:00Z'),
        containers: ['CSQU3054383'],
      });
      // Same container number and ref number in another account: must never leak.
      b1 = await seedShipment(db, other.accountId, {
        createdAt: new Date('2024-04-01T00:00:00Z'),
        containers: ['CSQU3054383', a1.containerNumbers[0]!],
        refNumbers: ['PO-111'],
      });
    });
    after(() => t.close());

    test('list: newest first, every attribute, relationships, links and meta', async () => {
      const res = await t.request('GET', '/v2/shipments');
      assert.equal(res.status, 200);
      assert.deepEqual(ids(res.body.data), [a3.shipmentId, a2.shipmentId, a1.shipmentId]);
      assert.equal(res.body.meta.total, 3);
      assert.equal(res.body.meta.size, 30);
      assert.equal(res.body.included, undefined);
      const s = res.body.data.find((d: any) => d.id === a1.shipmentId);
      assert.equal(s.type, 'shipment');
      assert.equal(s.links.self, `/v2/shipments/${a1.shipmentId}`);
      const at = s.attributes;
      assert.equal(at.bill_of_lading_number, a1.number);
      assert.equal(at.normalized_number, a1.number);
      assert.deepEqual(at.ref_numbers, ['PO-111']);
      assert.deepEqual(at.tags, ['hot']);
      assert.equal(at.created_at, '2024-01-01T00:00:00.000Z');
      assert.equal(at.updated_at, '2024-03-01T00:00:00.000Z');
      assert.equal(at.port_of_lading_locode, 'CNYTN');
      assert.equal(at.port_of_lading_name, portByLocode('CNYTN')!.name);
      assert.equal(at.port_of_discharge_locode, 'NLRTM');
      assert.equal(at.port_of_discharge_name, 'Rotterdam');
      assert.equal(at.destination_locode, 'DEDUI');
      assert.equal(at.destination_name, 'Duisburg');
      assert.equal(at.pol_timezone, 'Asia/Shanghai');
      assert.equal(at.pod_timezone, 'Europe/Amsterdam');
      assert.equal(at.destination_timezone, 'Europe/Berlin');
      assert.equal(at.shipping_line_scac, 'HLCU');
      assert.equal(at.shipping_line_name, 'Hapag-Lloyd');
      assert.equal(at.shipping_line_short_name, 'Hapag-Lloyd');
      assert.equal(at.pod_vessel_name, VESSEL.name);
      assert.equal(at.pod_vessel_imo, VESSEL.imo);
      assert.equal(at.pod_voyage_number, '412W');
      assert.equal(at.pol_etd_at, '2024-03-06T10:00:00.000Z');
      assert.equal(at.pol_atd_at, '2024-03-07T02:00:00.000Z');
      assert.equal(at.pod_eta_at, '2024-04-08T06:00:00.000Z');
      assert.equal(at.pod_original_eta_at, '2024-04-06T06:00:00.000Z');
      assert.equal(at.pod_ata_at, '2024-04-08T06:00:00.000Z');
      assert.equal(at.destination_eta_at, '2024-04-12T06:00:00.000Z');
      assert.equal(at.destination_ata_at, null);
      assert.equal(at.line_tracking_last_attempted_at, '2024-04-16T00:00:00.000Z');
      assert.equal(at.line_tracking_last_succeeded_at, '2024-04-16T00:00:00.000Z');
      assert.equal(at.line_tracking_stopped_at, null);
      assert.equal(at.line_tracking_stopped_reason, null);
      assert.equal(at.customer_name, null);
      assert.deepEqual(at.transshipment_locodes, []);
      const rel = s.relationships;
      assert.deepEqual(rel.port_of_lading.data, { type: 'port', id: portByLocode('CNYTN')!.id });
      assert.deepEqual(rel.port_of_discharge.data, { type: 'port', id: portByLocode('NLRTM')!.id });
      assert.deepEqual(rel.destination.data, { type: 'port', id: portByLocode('DEDUI')!.id });
      assert.deepEqual(rel.pod_terminal.data, { type: 'terminal', id: POD_TERMINAL.id });
      assert.deepEqual(rel.destination_terminal, { data: null });
      assert.deepEqual(rel.line_tracking_stopped_by_user, { data: null });
      assert.deepEqual(rel.containers.data.map((c: any) => c.id).sort(), [...a1.containerIds].sort());
      for (const c of rel.containers.data) assert.equal(c.type, 'container');
      const stopped = res.body.data.find((d: any) => d.id === a2.shipmentId).attributes;
      assert.equal(stopped.line_tracking_stopped_at, '2024-05-01T00:00:00.000Z');
      assert.equal(stopped.line_tracking_stopped_reason, 'all_containers_terminated');
    });

    test('pagination: links keep the other parameters, prev/next/last', async () => {
      const p1 = await t.request('GET', '/v2/shipments?page[size]=2&sort=created_at');
      assert.equal(p1.status, 200);
      assert.deepEqual(ids(p1.body.data), [a1.shipmentId, a2.shipmentId]);
      assert.equal(p1.body.meta.total, 3);
      assert.equal(p1.body.meta.size, 2);
      assert.equal(p1.body.links.prev, undefined);
      assert.ok(p1.body.links.next.includes('page%5Bnumber%5D=2'));
      assert.ok(p1.body.links.next.includes('sort=created_at'));
      assert.ok(p1.body.links.last.includes('page%5Bnumber%5D=2'));
      const p2 = await t.request('GET', p1.body.links.next);
      assert.deepEqual(ids(p2.body.data), [a3.shipmentId]);
      assert.equal(p2.body.links.next, undefined);
      assert.ok(p2.body.links.prev.includes('page%5Bnumber%5D=1'));
      const beyond = await t.request('GET', '/v2/shipments?page[number]=9');
      assert.equal(beyond.status, 200);
      assert.deepEqual(beyond.body.data, []);
    });

    test('sort by created_at and updated_at, both directions', async () => {
      const get = async (sort: string) =>
        ids((await t.request('GET', `/v2/shipments?sort=${sort}`)).body.data);
      assert.deepEqual(await get('created_at'), [a1.shipmentId, a2.shipmentId, a3.shipmentId]);
      assert.deepEqual(await get('-created_at'), [a3.shipmentId, a2.shipmentId, a1.shipmentId]);
      assert.deepEqual(await get('updated_at'), [a3.shipmentId, a2.shipmentId, a1.shipmentId]);
      assert.deepEqual(await get('-updated_at'), [a1.shipmentId, a2.shipmentId, a3.shipmentId]);
    });

    test('filters: q (BL, ref, container), number, tracking_stopped, updated_at', async () => {
      const list = async (qs: string) => {
        const r = await t.request('GET', `/v2/shipments?${qs}`);
        assert.equal(r.status, 200, qs);
        return ids(r.body.data);
      };
      assert.deepEqual(await list(`q=${a2.number.toLowerCase()}`), [a2.shipmentId]);
      assert.deepEqual(await list('q=PO-111'), [a1.shipmentId]);
      assert.deepEqual(await list(`q=${a1.containerNumbers[1]}`), [a1.shipmentId]);
      // CSQU3054383 is a3's and also b1's: only a3 is ours.
      assert.deepEqual(await list('q=csqu 305 4383'), [a3.shipmentId]);
      assert.deepEqual(await list('q=NOPE'), []);
      assert.deepEqual(await list(`number=${a3.number}`), [a3.shipmentId]);
      assert.deepEqual(await list(`number=${b1.number}`), []);
      assert.deepEqual(await list('filter[tracking_stopped]=true'), [a2.shipmentId]);
      assert.deepEqual(await list('filter[tracking_stopped]=false'), [a3.shipmentId, a1.shipmentId]);
      assert.deepEqual(await list('filter[updated_at][start]=2024-02-01T00:00:00Z'), [
        a2.shipmentId,
        a1.shipmentId,
      ]);
      assert.deepEqual(await list('filter[updated_at][end]=2024-01-31'), [a3.shipmentId]);
      assert.deepEqual(
        await list('filter[updated_at][start]=2024-01-20&filter[updated_at][end]=2024-02-15'),
        [a2.shipmentId],
      );
      const r = await t.request('GET', '/v2/shipments?filter[tracking_stopped]=true');
      assert.equal(r.body.meta.total, 1);
    });

    test('include: containers, terminals and ports, each once, never another account’s', async () => {
      const res = await t.request(
        'GET',
        '/v2/shipments?include=containers,pod_terminal,port_of_lading,port_of_discharge,destination,destination_terminal',
      );
      assert.equal(res.status, 200);
      const inc = res.body.included as any[];
      const containers = inc.filter((r) => r.type === 'container');
      const ours = [...a1.containerIds, ...a2.containerIds, ...a3.containerIds].sort();
      assert.deepEqual(ids(containers).sort(), ours);
      for (const c of containers) assert.ok(!b1.containerIds.includes(c.id));
      const ports = inc.filter((r) => r.type === 'port');
      assert.deepEqual(ports.map((p) => p.attributes.code).sort(), ['CNYTN', 'DEDUI', 'NLRTM']);
      const terminals = inc.filter((r) => r.type === 'terminal');
      assert.deepEqual(ids(terminals), [POD_TERMINAL.id]);
      assert.equal(terminals[0].attributes.smdg_code, 'DDE');
      const keys = inc.map((r) => `${r.type}:${r.id}`);
      assert.equal(new Set(keys).size, keys.length);
      const c = containers.find((x) => x.id === a3.containerIds[0]);
      assert.equal(c.attributes.number, 'CSQU3054383');
      assert.deepEqual(c.relationships.shipment.data, { type: 'shipment', id: a3.shipmentId });
    });

    test('another account: never listed, its shipment is 404 everywhere', async () => {
      const mine = await t.request('GET', '/v2/shipments', { key: other.key });
      assert.deepEqual(ids(mine.body.data), [b1.shipmentId]);
      const inc = await t.request('GET', `/v2/shipments/${b1.shipmentId}?include=containers`, {
        key: other.key,
      });
      assert.deepEqual(ids(inc.body.included).sort(), [...b1.containerIds].sort());
      for (const [method, path] of [
        ['GET', `/v2/shipments/${b1.shipmentId}`],
        ['PATCH', `/v2/shipments/${b1.shipmentId}/stop_tracking`],
        ['PATCH', `/v2/shipments/${b1.shipmentId}/resume_tracking`],
      ] as const) {
        const r = await t.request(method, path);
        assert.equal(r.status, 404, path);
        assert.equal(r.body.errors[0].code, 'not_found');
      }
      const patch = await t.request('PATCH', `/v2/shipments/${b1.shipmentId}`, {
        body: { data: { attributes: { tags: ['mine'] } } },
      });
      assert.equal(patch.status, 404);
      const row = await t.database.db
        .selectFrom('shipments')
        .select(['tags', 'line_tracking_stopped_at'])
        .where('id', '=', b1.shipmentId)
        .executeTakeFirstOrThrow();
      assert.deepEqual(row.tags, []);
      assert.equal(row.line_tracking_stopped_at, null);
    });

    test('get one, with include; unknown and malformed ids are 404', async () => {
      const res = await t.request('GET', `/v2/shipments/${a1.shipmentId}?include=containers,port_of_lading`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.id, a1.shipmentId);
      assert.deepEqual(res.body.included.map((r: any) => r.type).sort(), ['container', 'container', 'port']);
      const plain = await t.request('GET', `/v2/shipments/${a1.shipmentId}`);
      assert.equal(plain.body.included, undefined);
      assert.equal(
        (await t.request('GET', '/v2/shipments/00000000-0000-4000-8000-000000000000')).status,
        404,
      );
      assert.equal((await t.request('GET', '/v2/shipments/not-a-uuid')).status, 404);
    });

    test('bad query parameters are 400 with the parameter named', async () => {
      const cases: Array<[string, string]> = [
        ['include=shipment', 'include'],
        ['include=containers,nope', 'include'],
        ['sort=number', 'sort'],
        ['filter[tracking_stopped]=maybe', 'filter[tracking_stopped]'],
        ['filter[updated_at][start]=yesterday', 'filter[updated_at][start]'],
        ['page[size]=abc', 'page[size]'],
        ['page[number]=0', 'page[number]'],
      ];
      for (const [qs, parameter] of cases) {
        const res = await t.request('GET', `/v2/shipments?${qs}`);
        assert.equal(res.status, 400, qs);
        assert.equal(res.body.errors[0].source.parameter, parameter, qs);
      }
      const one = await t.request('GET', `/v2/shipments/${a1.shipmentId}?include=vessel`);
      assert.equal(one.status, 400);
      // Unknown parameters are ignored, as the reference does.
      const extra = await t.request('GET', `/v2/shipments/${a1.shipmentId}?page[size]=2&colour=red`);
      assert.equal(extra.status, 200);
    });

    test('patch edits ref_numbers and tags; tags must be unique; nothing else is editable', async () => {
      const before = await t.request('GET', `/v2/shipments/${a3.shipmentId}`);
      const schedule = async () =>
        (
          await t.database.db
            .selectFrom('shipments')
            .select('next_refresh_at')
            .where('id', '=', a3.shipmentId)
            .executeTakeFirstOrThrow()
        ).next_refresh_at?.toISOString();
      const scheduled = await schedule();
      assert.ok(scheduled);
      const res = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, {
        body: {
          data: {
            type: 'shipment',
            id: a3.shipmentId,
            attributes: { ref_numbers: ['A', ' B', 'A'], tags: ['x', 'y'] },
          },
        },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.attributes.ref_numbers, ['A', 'B']);
      assert.deepEqual(res.body.data.attributes.tags, ['x', 'y']);
      assert.ok(res.body.data.attributes.updated_at > before.body.data.attributes.updated_at);
      assert.equal(res.body.data.relationships.containers.data.length, 1);
      const onlyTags = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, {
        body: { data: { attributes: { tags: [] } } },
      });
      assert.deepEqual(onlyTags.body.data.attributes.tags, []);
      assert.deepEqual(onlyTags.body.data.attributes.ref_numbers, ['A', 'B']);

      const dup = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, {
        body: { data: { attributes: { tags: ['hot', 'cold', 'hot'] } } },
      });
      assert.equal(dup.status, 422);
      assert.equal(dup.body.errors[0].source.pointer, '/data/attributes/tags');
      assert.equal(dup.body.errors[0].code, 'not_unique');
      assert.equal(dup.body.errors[0].title, 'Unprocessable Entity');

      const blank = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, {
        body: { data: { attributes: { ref_numbers: ['ok', '  '] } } },
      });
      assert.equal(blank.status, 422);
      assert.equal(blank.body.errors[0].source.pointer, '/data/attributes/ref_numbers/1');

      const readOnly = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, {
        body: { data: { attributes: { bill_of_lading_number: 'X' } } },
      });
      assert.equal(readOnly.status, 422);
      assert.equal(readOnly.body.errors[0].source.pointer, '/data/attributes/bill_of_lading_number');
      const wrongType = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, {
        body: { data: { attributes: { tags: 'hot' } } },
      });
      assert.equal(wrongType.status, 422);
      assert.equal(wrongType.body.errors[0].source.pointer, '/data/attributes/tags');
      const noData = await t.request('PATCH', `/v2/shipments/${a3.shipmentId}`, { body: {} });
      assert.equal(noData.status, 422);
      assert.equal(noData.body.errors[0].source.pointer, '/data');
      const after = await t.request('GET', `/v2/shipments/${a3.shipmentId}`);
      assert.deepEqual(after.body.data.attributes.tags, []);
      // No re-tracking: the refresh schedule is untouched.
      assert.equal(await schedule(), scheduled);
    });

    test('stop_tracking: stops the shipment and its created requests, one domain event each, idempotent', async () => {
      const db = t.database.db;
      const s = await seedShipment(db, t.accountId);
      // A second, failed request for the same shipment is not touched.
      const failed = await db
        .insertInto('tracking_requests')
        .values({
          id: crypto.randomUUID(),
          account_id: t.accountId,
          request_number: `${s.number}X`,
          request_type: 'bill_of_lading',
          scac: 'HLCU',
          status: 'failed',
          failed_reason: 'not_found',
          shipment_id: s.shipmentId,
        })
        .returning('id')
        .executeTakeFirstOrThrow();

      const res = await t.request('PATCH', `/v2/shipments/${s.shipmentId}/stop_tracking`);
      assert.equal(res.status, 200);
      const at = res.body.data.attributes;
      assert.equal(at.line_tracking_stopped_reason, 'cancelled_by_user');
      assert.ok(at.line_tracking_stopped_at);
      assert.ok(Math.abs(Date.parse(at.line_tracking_stopped_at) - Date.now()) < 60_000);
      assert.equal(res.body.data.relationships.containers.data.length, 2);

      const row = await db
        .selectFrom('shipments')
        .select(['next_refresh_at'])
        .where('id', '=', s.shipmentId)
        .executeTakeFirstOrThrow();
      assert.equal(row.next_refresh_at, null);
      const tr = await t.request('GET', `/v2/tracking_requests/${s.trackingRequestId}`);
      assert.equal(tr.body.data.attributes.status, 'tracking_stopped');
      const f = await t.request('GET', `/v2/tracking_requests/${failed.id}`);
      assert.equal(f.body.data.attributes.status, 'failed');

      // The engine recorded the journey's own events when it tracked the shipment: only stops count here.
      const events = await db
        .selectFrom('domain_events')
        .selectAll()
        .where('shipment_id', '=', s.shipmentId)
        .where('event', '=', 'tracking_request.tracking_stopped')
        .execute();
      assert.equal(events.length, 1);
      const ev = events[0]!;
      assert.equal(ev.event, 'tracking_request.tracking_stopped');
      assert.equal(ev.account_id, t.accountId);
      assert.equal(ev.reference_type, 'tracking_request');
      assert.equal(ev.reference_id, s.trackingRequestId);
      assert.equal(ev.tracking_request_id, s.trackingRequestId);
      assert.equal(ev.container_id, null);

      // Stopping again keeps the first time and reason, and writes nothing new.
      const again = await t.request('PATCH', `/v2/shipments/${s.shipmentId}/stop_tracking`);
      assert.equal(again.status, 200);
      assert.equal(again.body.data.attributes.line_tracking_stopped_at, at.line_tracking_stopped_at);
      assert.equal(again.body.data.attributes.line_tracking_stopped_reason, 'cancelled_by_user');
      const count = await db
        .selectFrom('domain_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('shipment_id', '=', s.shipmentId)
        .where('event', '=', 'tracking_request.tracking_stopped')
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 1);

      // An automatically stopped shipment keeps its own reason.
      const auto = await t.request('PATCH', `/v2/shipments/${a2.shipmentId}/stop_tracking`);
      assert.equal(auto.body.data.attributes.line_tracking_stopped_reason, 'all_containers_terminated');
      assert.equal(auto.body.data.attributes.line_tracking_stopped_at, '2024-05-01T00:00:00.000Z');

      const listed = await t.request('GET', '/v2/shipments?filter[tracking_stopped]=true');
      assert.ok(ids(listed.body.data).includes(s.shipmentId));
    });

    test('resume_tracking: clears the stop, due now, requests back to created; no-op when not stopped', async () => {
      const db = t.database.db;
      const s = await seedShipment(db, t.accountId);
      assert.equal((await t.request('PATCH', `/v2/shipments/${s.shipmentId}/stop_tracking`)).status, 200);
      const res = await t.request('PATCH', `/v2/shipments/${s.shipmentId}/resume_tracking`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.attributes.line_tracking_stopped_at, null);
      assert.equal(res.body.data.attributes.line_tracking_stopped_reason, null);
      const row = await db
        .selectFrom('shipments')
        .select(['next_refresh_at'])
        .where('id', '=', s.shipmentId)
        .executeTakeFirstOrThrow();
      assert.ok(row.next_refresh_at);
      assert.ok(Math.abs(row.next_refresh_at.getTime() - Date.now()) < 60_000);
      const tr = await t.request('GET', `/v2/tracking_requests/${s.trackingRequestId}`);
      assert.equal(tr.body.data.attributes.status, 'created');

      // Not stopped: nothing changes.
      await db
        .updateTable('shipments')
        .set({ next_refresh_at: '2031-01-01T00:00:00Z' })
        .where('id', '=', s.shipmentId)
        .execute();
      const again = await t.request('PATCH', `/v2/shipments/${s.shipmentId}/resume_tracking`);
      assert.equal(again.status, 200);
      const row2 = await db
        .selectFrom('shipments')
        .select(['next_refresh_at'])
        .where('id', '=', s.shipmentId)
        .executeTakeFirstOrThrow();
      assert.equal(row2.next_refresh_at?.toISOString(), '2031-01-01T00:00:00.000Z');

      // A new active request for the same number meanwhile: the old one stays stopped (duplicate rule).
      const s2 = await seedShipment(db, t.accountId);
      await t.request('PATCH', `/v2/shipments/${s2.shipmentId}/stop_tracking`);
      await db
        .insertInto('tracking_requests')
        .values({
          id: crypto.randomUUID(),
          account_id: t.accountId,
          request_number: s2.number,
          request_type: 'bill_of_lading',
          scac: 'HLCU',
          status: 'pending',
        })
        .execute();
      const resumed = await t.request('PATCH', `/v2/shipments/${s2.shipmentId}/resume_tracking`);
      assert.equal(resumed.status, 200);
      assert.equal(resumed.body.data.attributes.line_tracking_stopped_at, null);
      const old = await t.request('GET', `/v2/tracking_requests/${s2.trackingRequestId}`);
      assert.equal(old.body.data.attributes.status, 'tracking_stopped');
      assert.equal((await t.request('PATCH', '/v2/shipments/nope/resume_tracking')).status, 404);
    });

    test('tracking requests include their shipment as tracked_object (only the caller’s)', async () => {
      const one = await t.request('GET', `/v2/tracking_requests/${a1.trackingRequestId}`);
      assert.equal(one.status, 200);
      assert.deepEqual(one.body.data.relationships.tracked_object.data, {
        type: 'shipment',
        id: a1.shipmentId,
      });
      assert.equal(one.body.included.length, 1);
      assert.equal(one.body.included[0].type, 'shipment');
      assert.equal(one.body.included[0].id, a1.shipmentId);
      assert.equal(one.body.included[0].attributes.bill_of_lading_number, a1.number);
      assert.equal(one.body.included[0].relationships.containers.data.length, 2);
      const list = await t.request('GET', '/v2/tracking_requests?include=tracked_object&page[size]=100');
      const included = ids(list.body.included);
      assert.ok(included.includes(a1.shipmentId));
      assert.ok(!included.includes(b1.shipmentId));
      assert.equal((await t.request('GET', `/v2/tracking_requests/${b1.trackingRequestId}`)).status, 404);
    });

    test('PUT and DELETE are 405', async () => {
      const res = await t.request('DELETE', `/v2/shipments/${a1.shipmentId}`);
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'GET, PATCH');
    });
  });
}
