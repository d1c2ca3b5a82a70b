import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

// Validators and serializers compile on a route's first request (src/http/lazy-compilers.ts). Two
// things that must not change: a validation failure answers the same details on the first request,
// which compiles, and on later ones; and no route declares a header schema, the one thing Fastify
// treats differently once the compilers are its options (it stops lower-casing header names).

for (const engine of ENGINES) {
  describe(`lazily compiled validators and serializers [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine);
    });
    after(() => t.close());

    test('a bad body answers the same errors when its validator compiles and afterwards', async () => {
      const bad = { data: { type: 'tracking_request', attributes: { request_type: 'nope' } } };
      const first = await t.request('POST', '/v2/tracking_requests', { body: bad });
      const second = await t.request('POST', '/v2/tracking_requests', { body: bad });
      assert.equal(first.status, 422);
      assert.ok(first.body.errors.length > 0);
      assert.deepEqual(second.body, first.body);
    });

    test('a response is serialized by its schema on the first request and afterwards', async () => {
      const first = await t.request('GET', '/v2/shipping_lines');
      const second = await t.request('GET', '/v2/shipping_lines');
      assert.equal(first.status, 200);
      assert.ok(Array.isArray(first.body.data));
      assert.equal(second.text, first.text);
    });

    test('no route declares a header schema', async () => {
      const doc = (await t.request('GET', '/v2/openapi.json')).body;
      const inHeader: string[] = [];
      for (const [path, item] of Object.entries<
        Record<string, { parameters?: { in: string; name: string }[] }>
      >(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          for (const p of op.parameters ?? [])
            if (p.in === 'header') inHeader.push(`${method} ${path} ${p.name}`);
        }
      }
      assert.deepEqual(inHeader, []);
    });
  });
}
