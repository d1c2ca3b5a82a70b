import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// Issue 13 (5): lenient where the reference is lenient, strict where a value is malformed.

for (const engine of ENGINES) {
  describe(`lenient parameters [${engine}]`, () => {
    let t: TestApp;
    let trackingRequestId: string;
    before(async () => {
      t = await startTestApp(engine);
      const seeded = await seedShipment(t.database.db, t.accountId);
      trackingRequestId = seeded.trackingRequestId;
    });
    after(() => t.close());

    test('unknown query parameters are ignored; known ones stay strict', async () => {
      const ok = await t.request('GET', '/v2/shipments?colour=red&filter[nope]=1');
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.body.data.length, 1);
      const bad = await t.request('GET', '/v2/shipments?filter[tracking_stopped]=maybe&colour=red');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].source.parameter, 'filter[tracking_stopped]');
      for (const qs of ['page[size]=abc', 'page[size]=0', 'page[number]=-1']) {
        const res = await t.request('GET', `/v2/containers?${qs}`);
        assert.equal(res.status, 400, qs);
        assert.equal(res.body.errors[0].source.parameter, qs.split('=')[0], qs);
      }
    });

    test('page[size] above the maximum is capped to 100', async () => {
      const res = await t.request('GET', '/v2/containers?page[size]=5000');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.meta.size, 100);
      assert.match(res.body.links.self, /page%5Bsize%5D=100/);
    });

    test('shipping_lines: search is a case-insensitive substring of name, short name or SCAC; paging', async () => {
      const all = await t.request('GET', '/v2/shipping_lines');
      assert.equal(all.status, 200);
      const total = all.body.data.length;
      assert.ok(total > 5);
      const byScac = await t.request('GET', '/v2/shipping_lines?search=mscu');
      assert.ok(byScac.body.data.some((l: any) => l.attributes.scac === 'MSCU'));
      const byName = await t.request('GET', '/v2/shipping_lines?search=MEDITERRANEAN');
      assert.ok(byName.body.data.length >= 1);
      for (const l of byName.body.data) assert.match(l.attributes.name, /mediterranean/i);
      const none = await t.request('GET', '/v2/shipping_lines?search=zzzz-no-line');
      assert.deepEqual(none.body.data, []);
      assert.equal(none.body.meta.total, 0);
      const p1 = await t.request('GET', '/v2/shipping_lines?page[size]=2');
      const p2 = await t.request('GET', '/v2/shipping_lines?page[size]=2&page[number]=2');
      assert.equal(p1.body.data.length, 2);
      assert.equal(p1.body.meta.total, total);
      assert.notEqual(p1.body.data[0].id, p2.body.data[0].id);
      assert.equal(p2.body.data[0].id, all.body.data[2].id);
      assert.ok(p1.body.links.next.includes('page%5Bnumber%5D=2'));
      const bad = await t.request('GET', '/v2/shipping_lines?page[number]=x');
      assert.equal(bad.status, 400);
    });

    test('include=shipment on tracking requests is an alias of tracked_object', async () => {
      const one = await t.request('GET', `/v2/tracking_requests/${trackingRequestId}?include=shipment`);
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.included[0].type, 'shipment');
      const list = await t.request('GET', '/v2/tracking_requests?include=shipment');
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.included[0].type, 'shipment');
      const bad = await t.request('GET', '/v2/tracking_requests?include=nope');
      assert.equal(bad.status, 400);
    });
  });
}
