import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { LIMITS } from '../../src/http/limits.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { assertJsonApiError, parseRawResponse, rawRequest } from '../helpers/raw-http.ts';

// Every error is JSON:API with `status` equal to the HTTP status, including those Fastify and
// Node answer before a route runs; and the documented input limits answer a precise 4xx.

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

for (const engine of ENGINES) {
  describe(`error documents [${engine}]`, () => {
    let t: TestApp;
    let auth: Record<string, string>;
    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '100000', BODY_LIMIT_BYTES: '4096' });
      auth = { authorization: `Token ${t.key}` };
    });
    after(() => t.close());

    test('malformed percent-encoding in a path or a query', async () => {
      for (const target of [
        '/v2/tracking_requests/%E0%A4%A',
        '/v2/shipments/%zz',
        '/v2/tracking_requests/%ED%A0%80',
        '/v2/tracking_requests?q=%E0%A4%A',
        '/v2/tracking_requests?q=100%',
        '/v2/shipments?%zz=1',
      ]) {
        const res = await rawRequest(t.url, { target, headers: auth });
        assertJsonApiError(res, 400);
        assert.equal(res.body.errors[0].code, 'invalid_encoding', target);
      }
    });

    test('overlong URLs, ids and parameters', async () => {
      const longUrl = await rawRequest(t.url, {
        target: `/v2/tracking_requests?q=${'a'.repeat(LIMITS.urlLength)}`,
        headers: auth,
      });
      assertJsonApiError(longUrl, 414);
      const headerOverflow = await rawRequest(t.url, {
        target: `/v2/shipments?q=${'a'.repeat(20_000)}`,
        headers: auth,
      });
      assertJsonApiError(headerOverflow, 431);
      const longId = await t.request(
        'GET',
        `/v2/tracking_requests/${'a'.repeat(LIMITS.pathParamLength + 1)}`,
      );
      assertJsonApiError(longId, 400);
      assert.equal(longId.body.errors[0].source.parameter, 'id');
      assert.equal(longId.body.errors[0].code, 'invalid_parameter');
      const okLength = await t.request('GET', `/v2/tracking_requests/${'a'.repeat(LIMITS.pathParamLength)}`);
      assertJsonApiError(okLength, 404);
      const longQuery = await t.request(
        'GET',
        `/v2/webhook_notifications?filter%5Bevent%5D=${'e'.repeat(LIMITS.queryValueLength + 1)}`,
      );
      assertJsonApiError(longQuery, 400);
      assert.equal(longQuery.body.errors[0].source.parameter, 'filter[event]');
      const longQ = await t.request('GET', `/v2/tracking_requests?q=${'q'.repeat(201)}`);
      assertJsonApiError(longQ, 400);
      assert.equal(longQ.body.errors[0].source.parameter, 'q');
    });

    test('unsupported media type, body too large, malformed JSON', async () => {
      const body = JSON.stringify(
        trBody({ request_type: 'bill_of_lading', request_number: 'X1', scac: 'MSCU' }),
      );
      for (const type of [
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
        'application/x-www-form-urlencoded',
      ]) {
        const res = await t.request('POST', '/v2/tracking_requests', {
          rawBody: body,
          headers: { 'content-type': type },
        });
        assertJsonApiError(res, 415);
      }
      const big = await t.request('POST', '/v2/tracking_requests', {
        rawBody: JSON.stringify({ pad: 'x'.repeat(5000) }),
        headers: { 'content-type': 'application/json' },
      });
      assertJsonApiError(big, 413);
      for (const raw of ['{', '{"data":', 'nul', '{"a":1,}', "{'a':1}", '{"__proto__":{"x":1}}']) {
        const res = await t.request('POST', '/v2/tracking_requests', {
          rawBody: raw,
          headers: { 'content-type': 'application/vnd.api+json' },
        });
        assertJsonApiError(res, 400);
      }
    });

    test(`JSON nested deeper than ${LIMITS.jsonDepth} levels is a 400 pointing at the first too-deep value`, async () => {
      const send = (rawBody: string) =>
        t.request('POST', '/v2/tracking_requests', {
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
      const deep = await send(nested(LIMITS.jsonDepth + 1));
      assertJsonApiError(deep, 400);
      assert.equal(deep.body.errors[0].code, 'too_deep');
      assert.equal(deep.body.errors[0].source.pointer, '/0'.repeat(LIMITS.jsonDepth));
      const deepest = await send(nested(1500));
      assertJsonApiError(deepest, 400);
      assert.equal(deepest.body.errors[0].code, 'too_deep');
      // Objects and arrays mixed, with member names that need escaping and strings holding brackets.
      let doc: unknown = 1;
      for (let i = 0; i < LIMITS.jsonDepth; i++)
        doc = i % 2 ? [0, 'x[{', doc] : { 'a/b': '}]', [`k~${i}`]: doc };
      const mixed = await send(JSON.stringify({ data: doc }));
      assertJsonApiError(mixed, 400);
      const pointer: string = mixed.body.errors[0].source.pointer;
      assert.match(pointer, /^\/data\/2\/k~030\/2\/k~028\/2\//);
      assert.equal(pointer.split('/').length - 1, LIMITS.jsonDepth);
      // At the limit the body parses and goes on to schema validation (a 422, not a 400).
      const atLimit = await send(nested(LIMITS.jsonDepth));
      assertJsonApiError(atLimit, 422);
    });

    test('array and string lengths: route limits and the generic ceilings, each with a pointer', async () => {
      const create = (attrs: Record<string, unknown>) =>
        t.request('POST', '/v2/tracking_requests', {
          body: trBody({
            request_type: 'bill_of_lading',
            request_number: 'LIMITS0001',
            scac: 'MSCU',
            ...attrs,
          }),
        });
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ ref_numbers: Array.from({ length: 101 }, (_, i) => `R${i}`) }, '/data/attributes/ref_numbers'],
        [{ shipment_tags: Array.from({ length: 101 }, (_, i) => `T${i}`) }, '/data/attributes/shipment_tags'],
        [{ ref_numbers: ['x'.repeat(201)] }, '/data/attributes/ref_numbers/0'],
        [{ request_number: 'X'.repeat(101) }, '/data/attributes/request_number'],
        [{ scac: 'M'.repeat(11) }, '/data/attributes/scac'],
      ];
      for (const [attrs, pointer] of cases) {
        const res = await create(attrs);
        assertJsonApiError(res, 422);
        assert.equal(res.body.errors[0].source.pointer, pointer);
        assert.equal(res.body.errors[0].code, 'too_long');
      }
      const generic = await t.request('PATCH', '/v2/shipments/00000000-0000-4000-8000-000000000000', {
        rawBody: JSON.stringify({
          data: { attributes: { tags: [], extra: Array(LIMITS.arrayLength + 1).fill(0) } },
        }),
        headers: { 'content-type': 'application/json' },
      });
      // BODY_LIMIT_BYTES is 4096 here: 1001 zeros fit.
      assertJsonApiError(generic, 422);
      assert.equal(generic.body.errors[0].source.pointer, '/data/attributes/extra');
      assert.equal(generic.body.errors[0].code, 'too_long');
    });

    test('unknown route, wrong method, bad HTTP', async () => {
      assertJsonApiError(await t.request('GET', '/v2/nothing_here'), 404);
      assertJsonApiError(await t.request('GET', '/nothing'), 404);
      const wrong = await t.request('DELETE', '/v2/tracking_requests');
      assertJsonApiError(wrong, 405);
      assert.ok(wrong.headers.get('allow')?.includes('GET'));
      const brew = await rawRequest(t.url, {
        method: 'BREW',
        target: '/v2/tracking_requests',
        headers: auth,
      });
      assertJsonApiError(brew, 400);
      const junk = await rawRequest(t.url, { method: 'GET', target: 'no spaces allowed', headers: auth });
      assertJsonApiError(junk, 400);
    });
  });
}

for (const engine of ENGINES) {
  describe(`closing [${engine}]`, () => {
    test('a request arriving while the server closes gets a JSON:API 503; the one in flight completes', async () => {
      const t = await startTestApp(engine);
      const body = JSON.stringify(
        trBody({ request_type: 'bill_of_lading', request_number: 'CLOSE0001', scac: 'MSCU' }),
      );
      const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (d: Buffer) => chunks.push(d));
      const closedSocket = new Promise((r) => socket.on('close', r));
      await new Promise((r) => socket.on('connect', r));
      const head = (method: string, path: string, extra = '') =>
        `${method} ${path} HTTP/1.1\r\nhost: x\r\nauthorization: Token ${t.key}\r\n${extra}\r\n`;
      // The first request is under way (half its body sent) when the server starts closing.
      socket.write(
        head(
          'POST',
          '/v2/tracking_requests',
          `content-type: application/json\r\ncontent-length: ${body.length}\r\n`,
        ) + body.slice(0, 10),
      );
      await new Promise((r) => setTimeout(r, 100));
      const closing = t.app.close();
      await new Promise((r) => setTimeout(r, 100));
      // The rest of its body, and a second request pipelined behind it.
      socket.write(body.slice(10) + head('GET', '/v2/tracking_requests'));
      await closedSocket;
      await closing;
      await t.database.destroy();
      const text = Buffer.concat(chunks).toString('utf8');
      const second = text.indexOf('HTTP/1.1', 10);
      assert.match(text.slice(0, second), /^HTTP\/1\.1 201 /);
      const res = parseRawResponse(Buffer.from(text.slice(second)), 0);
      assertJsonApiError(res, 503);
      assert.equal(res.headers['retry-after'], '1');
    });
  });
}
