import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { assertJsonApiError, rawRequest } from '../helpers/raw-http.ts';

// Input PostgreSQL cannot store, and input no field needs, is refused at validation with a
// precise JSON:API error on both engines (issue 10, item 4 and the validation rules).

const DATE_LISTS = [
  ['/v2/tracking_requests', 'filter[created_at][start]'],
  ['/v2/tracking_requests', 'filter[created_at][end]'],
  ['/v2/tracking_requests', 'filter[updated_at][start]'],
  ['/v2/shipments', 'filter[updated_at][start]'],
  ['/v2/shipments', 'filter[updated_at][end]'],
  ['/v2/containers', 'filter[updated_at][start]'],
  ['/v2/webhook_notifications', 'filter[created_at][start]'],
  ['/v2/webhook_notifications', 'filter[created_at][end]'],
] as const;

const BAD_DATES = [
  '0000-01-01',
  '0000-12-31T23:59:59Z',
  '10000-01-01',
  '+010000-01-01T00:00:00Z',
  '-000001-01-01',
  '2023-02-29',
  '2024-04-31T00:00:00Z',
  '2024-13-01',
  '2024-01-01T24:00:00Z',
  '2024-01-01T10:60:00Z',
  '0001-01-01T00:00:00+01:00',
  '9999-12-31T23:59:59-01:00',
  'yesterday',
];

const GOOD_DATES = ['0001-01-01', '2024-02-29', '9999-12-31T23:59:59Z', '2024-05-01T12:00:00.123+02:00'];

const createBody = (attrs: Record<string, unknown> = {}) =>
  JSON.stringify(
    trBody({ request_type: 'bill_of_lading', request_number: 'VALID00001', scac: 'MSCU', ...attrs }),
  );

for (const engine of ENGINES) {
  describe(`input validation [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '100000' });
    });
    after(() => t.close());

    test('date-time filters take real calendar dates with years 0001-9999 on every list', async () => {
      for (const [path, name] of DATE_LISTS) {
        for (const value of BAD_DATES) {
          const res = await t.request(
            'GET',
            `${path}?${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
          );
          assertJsonApiError(res, 400);
          assert.equal(res.body.errors[0].source.parameter, name, `${path} ${value}`);
        }
        for (const value of GOOD_DATES) {
          const res = await t.request(
            'GET',
            `${path}?${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
          );
          assert.equal(res.status, 200, `${path} ${name}=${value}: ${res.text}`);
        }
      }
    });

    test('a date-time in a body takes the same rules (bulk redeliver)', async () => {
      for (const value of ['0000-01-01T00:00:00Z', '2023-02-29T00:00:00Z', '2024-01-01']) {
        const res = await t.request('POST', '/v2/webhook_notifications/redeliver', {
          body: { webhook_id: '00000000-0000-4000-8000-000000000000', created_at_start: value },
        });
        assertJsonApiError(res, 422);
        assert.equal(res.body.errors[0].source.pointer, '/created_at_start', value);
      }
    });

    test('NUL and lone surrogates in any body string are a 422 pointing at the value', async () => {
      const cases: Array<[string, string]> = [
        [createBody({ ref_numbers: ['ok', 'a\u0000b'] }), '/data/attributes/ref_numbers/1'],
        [createBody({ shipment_tags: ['\ud800'] }), '/data/attributes/shipment_tags/0'],
        [createBody({ request_number: 'AB\u0000CD' }), '/data/attributes/request_number'],
        [createBody({ scac: '\udc00MSCU' }), '/data/attributes/scac'],
        [
          '{"data":{"attributes":{"request_type":"container","request_number":"x","scac":"MSCU","a\\u0000":1}}}',
          '/data/attributes/a\u0000',
        ],
      ];
      for (const [body, pointer] of cases) {
        const res = await t.request('POST', '/v2/tracking_requests', {
          rawBody: body,
          headers: { 'content-type': 'application/vnd.api+json' },
        });
        assertJsonApiError(res, 422);
        assert.equal(res.body.errors[0].source.pointer, pointer);
        assert.equal(res.body.errors[0].code, 'invalid_characters');
      }
      const patch = await t.request('PATCH', '/v2/shipments/00000000-0000-4000-8000-000000000000', {
        rawBody: '{"data":{"attributes":{"tags":["\\ud83d"]}}}',
        headers: { 'content-type': 'application/json' },
      });
      assertJsonApiError(patch, 422);
      assert.equal(patch.body.errors[0].source.pointer, '/data/attributes/tags/0');
    });

    test('NUL and encoded lone surrogates in query values and ids are a 400 naming the parameter', async () => {
      for (const [target, parameter] of [
        ['/v2/tracking_requests?q=a%00b', 'q'],
        ['/v2/shipments?q=%00', 'q'],
        ['/v2/containers?filter%5Bupdated_at%5D%5Bstart%5D=2024-01-01%00', 'filter[updated_at][start]'],
        ['/v2/webhook_notifications?filter%5Bevent%5D=x%00', 'filter[event]'],
        ['/v2/tracking_requests/abc%00def', 'id'],
        ['/v2/shipping_lines/MS%00CU', 'id'],
      ] as const) {
        const res = await t.request('GET', target);
        assertJsonApiError(res, 400);
        assert.equal(res.body.errors[0].source.parameter, parameter, target);
      }
      // %ED%A0%80 is a UTF-16 surrogate encoded as UTF-8: not UTF-8, so not valid percent-encoding.
      const res = await rawRequest(t.url, {
        target: '/v2/tracking_requests?q=%ED%A0%80',
        headers: { authorization: `Token ${t.key}` },
      });
      assertJsonApiError(res, 400);
      assert.equal(res.body.errors[0].source.parameter, 'q');
    });

    test('invalid UTF-8 in a body is refused, not replaced', async () => {
      const body = Buffer.concat([
        Buffer.from('{"data":{"attributes":{"request_type":"bill_of_lading","request_number":"AB'),
        Buffer.from([0xc3, 0x28]),
        Buffer.from('","scac":"MSCU"}}}'),
      ]);
      const res = await rawRequest(t.url, {
        method: 'POST',
        target: '/v2/tracking_requests',
        headers: { authorization: `Token ${t.key}`, 'content-type': 'application/json' },
        body,
      });
      assertJsonApiError(res, 400);
      assert.equal(res.body.errors[0].code, 'invalid_utf8');
    });

    test('numbers beyond the integer range and non-integers where a string belongs are a 422', async () => {
      for (const raw of ['1e400', '9007199254740993', '-1e300', '123456789012345678901234567890']) {
        const res = await t.request('POST', '/v2/tracking_requests', {
          rawBody: `{"data":{"attributes":{"request_type":"bill_of_lading","request_number":${raw},"scac":"MSCU"}}}`,
          headers: { 'content-type': 'application/json' },
        });
        assertJsonApiError(res, 422);
        assert.equal(res.body.errors[0].source.pointer, '/data/attributes/request_number', raw);
      }
      for (const raw of ['99999999999999999999', '-1', '0', '1.5', '1e3']) {
        const res = await t.request('GET', `/v2/tracking_requests?page%5Bnumber%5D=${raw}`);
        assertJsonApiError(res, 400);
        assert.equal(res.body.errors[0].source.parameter, 'page[number]', raw);
      }
    });

    test('the service still stores what it accepts: unicode beyond the BMP round-trips', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'bill_of_lading',
          request_number: 'UNICODE0001',
          scac: 'MSCU',
          ref_numbers: ['PO-😀-ü'],
        }),
      });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(res.body.data.attributes.ref_numbers, ['PO-😀-ü']);
    });
  });
}
