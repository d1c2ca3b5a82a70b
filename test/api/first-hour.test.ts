import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

// What a new user meets first, through the listening server: the printed API address answers,
// either authentication scheme works, and a broken JSON body says where it breaks.

for (const engine of ENGINES) {
  describe(`a new user's first requests [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine);
    });
    after(() => t.close());

    test('GET /v2 and /v2/ answer without a key with links that work', async () => {
      for (const path of ['/v2', '/v2/']) {
        const res = await t.request('GET', path, { key: null });
        assert.equal(res.status, 200, res.text);
        const { links } = res.body;
        for (const name of [
          'openapi',
          'docs',
          'console',
          'tracking_requests',
          'shipments',
          'containers',
          'webhooks',
          'alert_rules',
        ])
          assert.ok(links[name], `no ${name} link`);
        assert.match(res.body.meta.authentication, /Token <key>.*Bearer <key>/);
      }
      const { links } = (await t.request('GET', '/v2', { key: null })).body;
      for (const [name, href] of Object.entries(links as Record<string, string>)) {
        const res = await fetch(`${t.url}${href}`, { headers: { authorization: `Bearer ${t.key}` } });
        assert.equal(res.status, 200, `${name}: ${href} answered ${res.status}`);
      }
    });

    test('Bearer and Token are both accepted on /v2; the 401 names both', async () => {
      for (const scheme of ['Token', 'Bearer', 'bearer']) {
        const res = await t.request('GET', '/v2/tracking_requests', {
          key: null,
          headers: { authorization: `${scheme} ${t.key}` },
        });
        assert.equal(res.status, 200, `${scheme}: ${res.text}`);
      }
      for (const authorization of [`Basic ${t.key}`, t.key]) {
        const res = await t.request('GET', '/v2/shipments', { key: null, headers: { authorization } });
        assert.equal(res.status, 401);
        assert.match(res.body.errors[0].detail, /"Token <key>" or "Bearer <key>"/);
      }
      const missing = await t.request('GET', '/v2/shipments', { key: null });
      assert.match(missing.body.errors[0].detail, /Token <key>.*Bearer <key>/);
      const mcp = await t.request('POST', '/mcp', {
        key: null,
        headers: { authorization: `Basic ${t.key}` },
        body: {},
      });
      assert.equal(mcp.status, 401);
      assert.match(mcp.body.errors[0].detail, /Token <key>.*Bearer <key>/);
    });

    test('malformed JSON says where and what was expected; the code stays malformed_json', async () => {
      const cases: Array<[string, string, RegExp]> = [
        [
          'trailing comma',
          '{"data":{"attributes":{"request_type":"container",\n  "request_number":"X",}}}',
          /^The request body is not valid JSON at line 2, column 24 \(byte offset 74\): expected double-quoted property name \(found "}"\)\.$/,
        ],
        ['empty body', '', /^The request body is empty: expected a JSON document\.$/],
        [
          'truncated body',
          '{"data":{"attributes":{"request_type":"cont',
          /^The request body is not valid JSON: it ends at line 1, column 44 \(byte offset 43\) where more was expected/,
        ],
      ];
      for (const [name, rawBody, detail] of cases) {
        const res = await t.request('POST', '/v2/tracking_requests', {
          rawBody,
          headers: { 'content-type': 'application/vnd.api+json' },
        });
        assert.equal(res.status, 400, `${name}: ${res.text}`);
        assert.equal(res.body.errors[0].code, 'malformed_json', name);
        assert.match(res.body.errors[0].detail, detail, name);
      }
    });
  });
}
