import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { assertJsonApiError, rawRequest } from '../helpers/raw-http.ts';
import { startReceiver } from '../helpers/receiver.ts';

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
      t = await startTestApp(engine, {
        REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWLIST: '127.0.0.0/8',
      });
      headers = { authorization: `Token ${t.key}`, 'content-type': 'application/json' };
    });
    after(() => t.close());

    test('a handler slower than the time-out is not cut off: the time-out is for receiving', async () => {
      const rx = await startReceiver();
      try {
        rx.on('/slow', () => ({ status: 204, delayMs: TIMEOUT_MS * 2 }));
        const started = Date.now();
        const res = await t.request('POST', '/v2/webhooks/trigger', {
          body: { url: rx.url('/slow'), event: 'tracking_request.succeeded' },
        });
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status_code, 204, res.text);
        assert.ok(Date.now() - started >= TIMEOUT_MS * 2);
      } finally {
        await rx.close();
      }
    });

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

    test('a request that arrives in time is served, also on a connection kept alive longer than the time-out', async () => {
      const socket = net.connect(Number(new URL(t.url).port), '127.0.0.1');
      let received = '';
      socket.on('data', (d: Buffer) => {
        received += d.toString('utf8');
      });
      await new Promise((r) => socket.on('connect', r));
      const get = `GET /v2/tracking_requests HTTP/1.1\r\nhost: x\r\nauthorization: Token ${t.key}\r\n\r\n`;
      const answered = async (n: number) => {
        for (let i = 0; i < 200 && (received.match(/HTTP\/1\.1 /g) ?? []).length < n; i++) {
          await new Promise((r) => setTimeout(r, 20));
        }
        return [...received.matchAll(/HTTP\/1\.1 (\d+)/g)].map((m) => Number(m[1]));
      };
      socket.write(get);
      assert.deepEqual(await answered(1), [200]);
      // Idle between requests is the keep-alive time-out's business, not the request time-out's.
      await new Promise((r) => setTimeout(r, TIMEOUT_MS * 2));
      socket.write(get);
      assert.deepEqual(await answered(2), [200, 200]);
      socket.destroy();
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
