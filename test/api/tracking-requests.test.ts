import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

for (const engine of ENGINES) {
  describe(`tracking requests [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, {
        RATE_LIMIT_CREATE_PER_MINUTE: '1000',
        RATE_LIMIT_DEFAULT_PER_MINUTE: '1000',
      });
    });
    after(() => t.close());

    test('create answers 201 with a pending request, number normalised', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: '  medu fr03 0802 ', scac: 'mscu' }),
      });
      assert.equal(res.status, 201);
      const d = res.body.data;
      assert.equal(d.type, 'tracking_request');
      assert.match(d.id, /^[0-9a-f-]{36}$/);
      assert.equal(d.attributes.request_number, 'MEDUFR030802');
      assert.equal(d.attributes.scac, 'MSCU');
      assert.equal(d.attributes.status, 'pending');
      assert.equal(d.attributes.failed_reason, null);
      assert.equal(d.attributes.is_retrying, false);
      assert.equal(d.attributes.retry_count, null);
      assert.deepEqual(d.attributes.ref_numbers, []);
      assert.deepEqual(d.relationships.tracked_object, { data: null });
      assert.equal(d.links.self, `/v2/tracking_requests/${d.id}`);
      const got = await t.request('GET', d.links.self);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.id, d.id);
    });

    test('accepts application/json too, and alternative SCACs map to the line', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        rawBody: JSON.stringify(
          trBody({ request_type: 'booking_number', request_number: 'YM123', scac: 'YMPR' }),
        ),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 201);
      assert.equal(res.body.data.attributes.scac, 'YMLU');
    });

    test('container numbers must pass the ISO 6346 check digit', async () => {
      const ok = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'container', request_number: 'CSQU3054383', scac: 'MAEU' }),
      });
      assert.equal(ok.status, 201);
      const bad = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'container', request_number: 'CSQU3054384', scac: 'MAEU' }),
      });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.errors[0].source.pointer, '/data/attributes/request_number');
      assert.match(bad.body.errors[0].detail, /check digit/);
      const shape = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'container', request_number: 'ABC', scac: 'MAEU' }),
      });
      assert.equal(shape.status, 422);
      assert.equal(shape.body.errors[0].code, 'invalid_number');
    });

    test('unknown SCAC, blank values and several errors at once', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: '  ', scac: 'XXXX' }),
      });
      assert.equal(res.status, 422);
      const pointers = res.body.errors.map((e: any) => e.source.pointer).sort();
      assert.deepEqual(pointers, ['/data/attributes/request_number', '/data/attributes/scac']);
      assert.ok(res.body.errors.some((e: any) => /XXXX/.test(e.detail)));
      for (const e of res.body.errors) {
        assert.equal(e.status, '422');
        assert.equal(e.title, 'Unprocessable Entity');
        assert.ok(e.code);
      }
    });

    test('schema errors point at the member: missing, wrong type, unknown attribute, bad enum', async () => {
      const missing = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'X1' }),
      });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.errors[0].source.pointer, '/data/attributes/scac');
      assert.equal(missing.body.errors[0].code, 'blank');

      const wrongType = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 123, scac: 'MSCU' }),
      });
      assert.equal(wrongType.status, 422);
      assert.equal(wrongType.body.errors[0].source.pointer, '/data/attributes/request_number');
      assert.equal(wrongType.body.errors[0].code, 'invalid_type');

      const unknown = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'X1', scac: 'MSCU', colour: 'red' }),
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.errors[0].source.pointer, '/data/attributes/colour');
      assert.equal(unknown.body.errors[0].code, 'unknown_attribute');

      const badEnum = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'house_bill', request_number: 'X1', scac: 'MSCU' }),
      });
      assert.equal(badEnum.status, 422);
      assert.equal(badEnum.body.errors[0].source.pointer, '/data/attributes/request_type');

      const noData = await t.request('POST', '/v2/tracking_requests', { body: {} });
      assert.equal(noData.status, 422);
      assert.equal(noData.body.errors[0].source.pointer, '/data');
      // Nothing was written by any of these.
      const list = await t.request('GET', '/v2/tracking_requests?filter[request_number]=X1');
      assert.equal(list.body.meta.total, 0);
    });

    test('malformed JSON is 400, wrong media type 415, oversized body 413', async () => {
      const malformed = await t.request('POST', '/v2/tracking_requests', {
        rawBody: '{"data": {',
        headers: { 'content-type': 'application/vnd.api+json' },
      });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.body.errors[0].code, 'malformed_json');

      const media = await t.request('POST', '/v2/tracking_requests', {
        rawBody: 'request_number=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(media.status, 415);
      assert.equal(media.body.errors[0].code, 'unsupported_media_type');

      const big = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'X'.repeat(200_000), scac: 'MSCU' }),
      });
      assert.equal(big.status, 413);
      assert.equal(big.body.errors[0].status, '413');
    });

    test('duplicate while pending is a 422 duplicate; another account may track the same number', async () => {
      const body = trBody({ request_type: 'bill_of_lading', request_number: 'DUPL0001', scac: 'MAEU' });
      assert.equal((await t.request('POST', '/v2/tracking_requests', { body })).status, 201);
      const dup = await t.request('POST', '/v2/tracking_requests', { body });
      assert.equal(dup.status, 422);
      assert.deepEqual(
        {
          code: dup.body.errors[0].code,
          pointer: dup.body.errors[0].source.pointer,
          title: dup.body.errors[0].title,
        },
        { code: 'duplicate', pointer: '/data/attributes/request_number', title: 'Unprocessable Entity' },
      );
      const other = await t.newAccount();
      assert.equal((await t.request('POST', '/v2/tracking_requests', { body, key: other.key })).status, 201);
    });

    test('the duplicate rule holds under concurrent creates', async () => {
      const body = trBody({ request_type: 'bill_of_lading', request_number: 'RACE0001', scac: 'HLCU' });
      const results = await Promise.all(
        Array.from({ length: 12 }, () => t.request('POST', '/v2/tracking_requests', { body })),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.equal(statuses.filter((s) => s === 201).length, 1);
      assert.equal(statuses.filter((s) => s === 422).length, 11);
      for (const r of results.filter((x) => x.status === 422))
        assert.equal(r.body.errors[0].code, 'duplicate');
    });

    test('concurrent creates written together keep their own fields, ids and duplicates apart', async () => {
      // Creates arriving together share one INSERT: each must still get its own row back.
      const numbers = Array.from({ length: 15 }, (_, i) => `MIX${String(i).padStart(4, '0')}`);
      const bodies = [
        ...numbers.map((n, i) =>
          trBody({
            request_type: 'bill_of_lading',
            request_number: n,
            scac: 'MAEU',
            ref_numbers: [`PO-${i}`],
            shipment_tags: [`t${i}`],
          }),
        ),
        ...Array.from({ length: 5 }, () =>
          trBody({ request_type: 'bill_of_lading', request_number: 'MIXDUP01', scac: 'MAEU' }),
        ),
      ];
      const results = await Promise.all(
        bodies.map((body) => t.request('POST', '/v2/tracking_requests', { body })),
      );
      for (let i = 0; i < numbers.length; i++) {
        const r = results[i]!;
        assert.equal(r.status, 201);
        assert.equal(r.body.data.attributes.request_number, numbers[i]);
        assert.deepEqual(r.body.data.attributes.ref_numbers, [`PO-${i}`]);
        assert.deepEqual(r.body.data.attributes.shipment_tags, [`t${i}`]);
      }
      assert.equal(new Set(results.slice(0, numbers.length).map((r) => r.body.data.id)).size, numbers.length);
      const dup = results.slice(numbers.length).map((r) => r.status);
      assert.deepEqual(dup.sort(), [201, 422, 422, 422, 422]);
      const stored = await t.request('GET', `/v2/tracking_requests/${results[3]!.body.data.id}`);
      assert.equal(stored.body.data.attributes.request_number, numbers[3]);
    });

    test('list: pagination links, meta, filters, q, sort', async () => {
      const acct = await t.newAccount('lister');
      for (let i = 0; i < 5; i++) {
        const r = await t.request('POST', '/v2/tracking_requests', {
          key: acct.key,
          body: trBody({
            request_type: 'bill_of_lading',
            request_number: `LIST${i}`,
            scac: i % 2 ? 'MAEU' : 'CMDU',
            ref_numbers: [`PO-${i}`],
          }),
        });
        assert.equal(r.status, 201);
        // PGlite keeps created_at to the millisecond and ties sort by random id: one apart.
        await new Promise((r) => setTimeout(r, 2));
      }
      const p1 = await t.request('GET', '/v2/tracking_requests?page[size]=2', { key: acct.key });
      assert.equal(p1.status, 200);
      assert.equal(p1.body.data.length, 2);
      assert.equal(p1.body.meta.total, 5);
      assert.equal(p1.body.meta.size, 2);
      assert.equal(p1.body.data[0].attributes.request_number, 'LIST4'); // newest first
      assert.ok(p1.body.links.next.includes('page%5Bnumber%5D=2'));
      assert.ok(p1.body.links.last.includes('page%5Bnumber%5D=3'));
      assert.equal(p1.body.links.prev, undefined);
      const p3 = await t.request('GET', '/v2/tracking_requests?page[size]=2&page[number]=3', {
        key: acct.key,
      });
      assert.equal(p3.body.data.length, 1);
      assert.equal(p3.body.links.next, undefined);
      assert.ok(p3.body.links.prev);

      const scac = await t.request('GET', '/v2/tracking_requests?filter[scac]=maeu', { key: acct.key });
      assert.equal(scac.body.meta.total, 2);
      const status = await t.request('GET', '/v2/tracking_requests?filter[status]=failed', { key: acct.key });
      assert.equal(status.body.meta.total, 0);
      const q = await t.request('GET', '/v2/tracking_requests?q=PO-3', { key: acct.key });
      assert.deepEqual(
        q.body.data.map((d: any) => d.attributes.request_number),
        ['LIST3'],
      );
      const qSub = await t.request('GET', '/v2/tracking_requests?q=list', { key: acct.key });
      assert.equal(qSub.body.meta.total, 5);
      const asc = await t.request('GET', '/v2/tracking_requests?sort=created_at&page[size]=1', {
        key: acct.key,
      });
      assert.equal(asc.body.data[0].attributes.request_number, 'LIST0');
      const future = await t.request(
        'GET',
        '/v2/tracking_requests?filter[created_at][start]=2999-01-01T00:00:00Z',
        {
          key: acct.key,
        },
      );
      assert.equal(future.body.meta.total, 0);
      const upd = await t.request('GET', '/v2/tracking_requests?filter[updated_at][end]=2000-01-01', {
        key: acct.key,
      });
      assert.equal(upd.body.meta.total, 0);
      const inc = await t.request('GET', '/v2/tracking_requests?include=tracked_object', { key: acct.key });
      assert.equal(inc.status, 200);
      assert.deepEqual(inc.body.included, []);
    });

    test('bad query parameters are 400 with the parameter named', async () => {
      const cases: Array<[string, string]> = [
        ['page[size]=0', 'page[size]'],
        ['page[number]=abc', 'page[number]'],
        ['include=containers', 'include'],
        ['filter[status]=done', 'filter[status]'],
        ['filter[created_at][start]=yesterday', 'filter[created_at][start]'],
        ['sort=name', 'sort'],
      ];
      for (const [qs, parameter] of cases) {
        const res = await t.request('GET', `/v2/tracking_requests?${qs}`);
        assert.equal(res.status, 400, qs);
        assert.equal(res.body.errors[0].source.parameter, parameter, qs);
        assert.equal(res.body.errors[0].status, '400');
      }
      // Like the reference: unknown parameters are ignored, an oversized page is capped, and
      // include=shipment is another name for tracked_object.
      for (const qs of ['colour=red', 'page[size]=101', 'include=shipment']) {
        assert.equal((await t.request('GET', `/v2/tracking_requests?${qs}`)).status, 200, qs);
      }
    });

    test('get: unknown and malformed ids are 404', async () => {
      const unknown = await t.request('GET', '/v2/tracking_requests/00000000-0000-4000-8000-000000000000');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.errors[0].status, '404');
      assert.equal((await t.request('GET', '/v2/tracking_requests/not-a-uuid')).status, 404);
      const inc = await t.request(
        'GET',
        '/v2/tracking_requests/00000000-0000-4000-8000-000000000000?include=nope',
      );
      assert.equal(inc.status, 400);
    });

    test('patch edits ref_numbers and tags, nothing else', async () => {
      const created = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'PATCH01', scac: 'MSCU' }),
      });
      const id = created.body.data.id;
      const res = await t.request('PATCH', `/v2/tracking_requests/${id}`, {
        body: {
          data: { type: 'tracking_request', attributes: { ref_numbers: ['A', 'B', 'A'], tags: ['hot'] } },
        },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.attributes.ref_numbers, ['A', 'B']);
      assert.deepEqual(res.body.data.attributes.tags, ['hot']);
      const legacy = await t.request('PATCH', `/v2/tracking_requests/${id}`, {
        body: { data: { attributes: { ref_number: 'C' } } },
      });
      assert.deepEqual(legacy.body.data.attributes.ref_numbers, ['C']);
      const bad = await t.request('PATCH', `/v2/tracking_requests/${id}`, {
        body: { data: { attributes: { status: 'created' } } },
      });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.errors[0].source.pointer, '/data/attributes/status');
      const missing = await t.request('PATCH', '/v2/tracking_requests/00000000-0000-4000-8000-000000000000', {
        body: { data: { attributes: { tags: [] } } },
      });
      assert.equal(missing.status, 404);
    });

    test('unknown method on a known path is 405 with Allow; unknown path 404', async () => {
      const res = await t.request('DELETE', '/v2/tracking_requests');
      assert.equal(res.status, 405);
      assert.equal(res.headers.get('allow'), 'GET, POST');
      assert.equal(res.body.errors[0].status, '405');
      const nf = await t.request('GET', '/v2/nothing-here');
      assert.equal(nf.status, 404);
    });
  });
}
