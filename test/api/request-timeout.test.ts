import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { assertJsonApiError, rawRequest } from '../helpers/raw-http.ts';

// REQUEST_TIMEOUT_MS covers the request line, headers and body: a request that trickles in is
// answered 408 (JSON:API) and its connection closed, close to the time-out rather than after
// Node's 30 s connection check.

const TIMEOUT_MS = 600;

test('REQUEST_TIMEOUT_MS defaults to 30 s', () => {
  assert.equal(loadConfig({}).requestTimeoutMs, 30_000);
  assert.equal(loadConfig({ REQUEST_TIMEOUT_MS: '1500' }).requestTimeoutMs, 1500);
  assert.throws(() => loadConfig({ REQUEST_TIMEOUT_MS: 'soon' }), /REQUEST_TIMEOUT_MS/);
});

for (const engine of ENGINES) {
  describe(`request time-out [${engine}]`, () => {
    let t: TestApp;
    let headers: Record<string, string>;
    const body = JSON.stringify(
      trBody({ request_type: 'bill_of_lading', request_number: 'SLOW0001', scac: 'MSCU' }),
    );
    before(async () => {
      t = await startTestApp(engine, { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) });
      headers = { authorization: `Token ${t.key}`, 'content-type': 'application/json' };
    });
    after(() => t.close());

    test('a body that trickles in gets 408 JSON:API and the connection closes', async () => {
      // One byte every 100 ms: the whole body would take about 10 s.
      const res = await rawRequest(t.url, {
        method: 'POST',
        target: '/v2/tracking_requests',
        headers,
        body,
        trickle: { bytes: 1, everyMs: 100 },
      });
      assertJsonApiError(res, 408);
      assert.equal(res.body.errors[0].code, 'request_timeout');
      assert.ok(res.elapsedMs >= TIMEOUT_MS - 50, `answered after ${res.elapsedMs} ms`);
      assert.ok(res.elapsedMs < TIMEOUT_MS * 3, `answered after ${res.elapsedMs} ms`);
      // Nothing was created from the partial body.
      const list = await t.request('GET', '/v2/tracking_requests?filter%5Brequest_number%5D=SLOW0001');
      assert.equal(list.body.meta.total, 0);
    });

    test('headers that trickle in get 408 too', async () => {
      const res = await rawRequest(t.url, {
        target: '',
        // The request line, then header lines a few bytes at a time, never the blank line.
        head: `GET /v2/tracking_requests HTTP/1.1\r\nhost: x\r\nauthorization: Token ${t.key}\r\n`,
        body: Array.from({ length: 100 }, (_, i) => `x-slow-${i}: 1\r\n`).join(''),
        trickle: { bytes: 12, everyMs: 100 },
      });
      assertJsonApiError(res, 408);
      assert.ok(res.elapsedMs < TIMEOUT_MS * 3, `answered after ${res.elapsedMs} ms`);
    });

    test('a request that arrives in time is served, even if it waited on a kept-alive connection', async () => {
      await new Promise((r) => setTimeout(r, TIMEOUT_MS + 200));
      const res = await rawRequest(t.url, { method: 'POST', target: '/v2/tracking_requests', headers, body });
      assert.equal(res.status, 201, res.text);
      // A slow but timely body (done in about a third of the time-out) is fine.
      const slowOk = await rawRequest(t.url, {
        method: 'POST',
        target: '/v2/tracking_requests',
        headers,
        body: body.replace('SLOW0001', 'SLOW0002'),
        trickle: { bytes: Math.ceil(body.length / 4), everyMs: 50 },
      });
      assert.equal(slowOk.status, 201, slowOk.text);
    });
  });
}
