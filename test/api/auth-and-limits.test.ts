import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { revokeApiKey } from '../../src/accounts/service.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

for (const engine of ENGINES) {
  describe(`authentication and isolation [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine);
    });
    after(() => t.close());

    test('missing, malformed, unknown and revoked keys get a JSON:API 401', async () => {
      const cases: Array<[string | null, Record<string, string>?]> = [
        [null],
        ['x', { authorization: 'Bearer abc' }],
        ['x', { authorization: 'Token not-a-key' }],
        ['trk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
        [`${t.key.slice(0, -1)}${t.key.endsWith('A') ? 'B' : 'A'}`], // right prefix, wrong secret
      ];
      for (const [key, headers] of cases) {
        const res = await t.request('GET', '/v2/tracking_requests', { key: headers ? null : key, headers });
        assert.equal(res.status, 401, JSON.stringify([key, headers]));
        assert.equal(res.body.errors[0].status, '401');
        assert.equal(res.body.errors[0].title, 'Unauthorized');
      }
      const other = await t.newAccount('revoked');
      assert.equal((await t.request('GET', '/v2/tracking_requests', { key: other.key })).status, 200);
      const keys = await t.database.db
        .selectFrom('api_keys')
        .select('id')
        .where('account_id', '=', other.accountId)
        .execute();
      await revokeApiKey(t.database.db, keys[0]!.id);
      // The server has this key cached; the revocation reaches it through the change feed
      // (PostgreSQL NOTIFY, delivered a moment after the commit; PGlite: at once).
      let revoked = await t.request('GET', '/v2/tracking_requests', { key: other.key });
      for (let i = 0; i < 50 && revoked.status === 200 && engine === 'postgres'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        revoked = await t.request('GET', '/v2/tracking_requests', { key: other.key });
      }
      assert.equal(revoked.status, 401);
      assert.match(revoked.body.errors[0].detail, /revoked/);
    });

    test("another account's records are 404 and never listed", async () => {
      const mine = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'MINE0001', scac: 'MSCU' }),
      });
      const id = mine.body.data.id;
      const other = await t.newAccount('intruder');
      assert.equal((await t.request('GET', `/v2/tracking_requests/${id}`, { key: other.key })).status, 404);
      const patch = await t.request('PATCH', `/v2/tracking_requests/${id}`, {
        key: other.key,
        body: { data: { attributes: { tags: ['x'] } } },
      });
      assert.equal(patch.status, 404);
      const list = await t.request('GET', '/v2/tracking_requests?q=MINE0001', { key: other.key });
      assert.equal(list.body.meta.total, 0);
      assert.equal((await t.request('GET', `/v2/tracking_requests/${id}`)).status, 200);
    });

    test('health, readiness, OpenAPI and docs need no key', async () => {
      assert.deepEqual((await t.request('GET', '/healthz', { key: null })).body, { status: 'ok' });
      assert.equal((await t.request('GET', '/readyz', { key: null })).status, 200);
      const oa = await t.request('GET', '/v2/openapi.json', { key: null });
      assert.equal(oa.status, 200);
      assert.equal(oa.body.openapi, '3.1.0');
      assert.ok(oa.body.paths['/v2/tracking_requests'].post);
      assert.ok(oa.body.paths['/v2/tracking_requests/{id}'].patch);
      assert.equal(oa.body.paths['/healthz'], undefined);
      const docs = await fetch(`${t.url}/docs/`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger/i);
    });

    test('responses carry a request id', async () => {
      const res = await t.request('GET', '/v2/shipping_lines', { headers: { 'x-request-id': 'abc-123' } });
      assert.equal(res.headers.get('x-request-id'), 'abc-123');
    });
  });

  describe(`shipping lines [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine);
    });
    after(() => t.close());

    test('list and get by id or SCAC, with alternative SCACs and support flags', async () => {
      const res = await t.request('GET', '/v2/shipping_lines');
      assert.equal(res.status, 200);
      assert.ok(res.body.data.length >= 46);
      const msc = res.body.data.find((l: any) => l.attributes.scac === 'MSCU');
      assert.deepEqual(msc.attributes.alternative_scacs, ['MEDU']);
      assert.equal(msc.attributes.container_number_tracking_support, true);
      assert.ok(res.body.data.find((l: any) => l.attributes.scac === 'TEST'));
      const byId = await t.request('GET', `/v2/shipping_lines/${msc.id}`);
      assert.equal(byId.body.data.attributes.name, msc.attributes.name);
      const byScac = await t.request('GET', '/v2/shipping_lines/MEDU');
      assert.equal(byScac.body.data.id, msc.id);
      assert.equal((await t.request('GET', '/v2/shipping_lines/NOPE')).status, 404);
    });
  });

  describe(`rate limits [${engine}]`, () => {
    test('creation bucket: 429 with Retry-After and a JSON:API body, per account, across processes', async () => {
      const a = await startTestApp(engine, { RATE_LIMIT_CREATE_PER_MINUTE: '3' });
      // A second server on the same database stands in for a second process.
      const b = await startTestApp(engine, { RATE_LIMIT_CREATE_PER_MINUTE: '3' }, { database: a.database });
      try {
        const make = (app: TestApp, i: number, key?: string) =>
          app.request('POST', '/v2/tracking_requests', {
            key: key ?? a.key,
            body: trBody({ request_type: 'bill_of_lading', request_number: `RL${i}`, scac: 'MSCU' }),
          });
        const results = await Promise.all([make(a, 1), make(b, 2), make(a, 3), make(b, 4), make(a, 5)]);
        assert.equal(results.filter((r) => r.status === 201).length, 3);
        const limited = results.filter((r) => r.status === 429);
        assert.equal(limited.length, 2);
        const retry = Number(limited[0]!.headers.get('retry-after'));
        assert.ok(retry >= 1 && retry <= 60, `retry-after ${retry}`);
        assert.equal(limited[0]!.body.errors[0].status, '429');
        assert.equal(limited[0]!.body.errors[0].title, 'Too Many Requests');
        // Other buckets and other accounts are unaffected.
        assert.equal((await a.request('GET', '/v2/tracking_requests')).status, 200);
        const other = await a.newAccount();
        assert.equal((await make(b, 6, other.key)).status, 201);
      } finally {
        await b.close();
        await a.close();
      }
    });

    test('default bucket limits every other endpoint', async () => {
      const a = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '2' });
      try {
        assert.equal((await a.request('GET', '/v2/shipping_lines')).status, 200);
        const second = await a.request('GET', '/v2/tracking_requests');
        assert.equal(second.status, 200);
        assert.equal(second.headers.get('x-ratelimit-remaining'), '0');
        const third = await a.request('GET', '/v2/shipping_lines');
        assert.equal(third.status, 429);
        assert.ok(third.headers.get('retry-after'));
      } finally {
        await a.close();
      }
    });
  });

  describe(`internal errors [${engine}]`, () => {
    test('a 500 carries no stack trace or SQL', async () => {
      const t = await startTestApp(engine);
      await t.database.close(); // the database goes away under the server
      try {
        const res = await t.request('GET', '/v2/shipping_lines');
        assert.equal(res.status, 500);
        assert.equal(res.body.errors[0].status, '500');
        assert.doesNotMatch(res.text, /select|at .*\.ts|Error:/i);
        assert.equal((await t.request('GET', '/readyz', { key: null })).status, 503);
      } finally {
        await t.app.close();
        await t.database.destroy();
      }
    });
  });
}
