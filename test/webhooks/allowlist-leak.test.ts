// An allowlisted internal receiver (127.0.0.1:PORT) must not be readable through the API: the trigger
// answer and the attempt logs of real deliveries keep status and timing, never the answer's body or
// headers; and a port not in the entry is refused on save, on trigger and at connection.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine } from '../../src/engine/start.ts';
import { createAddressPolicy, createDispatcher } from '../../src/webhooks/delivery/address-guard.ts';
import { attemptDelivery } from '../../src/webhooks/delivery/http-attempt.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

const SECRET = `internal-secret-${randomUUID()}`;

interface Rx {
  server: Server;
  port: number;
  bodies: { path: string; json: any }[];
  connections: number;
}

/** An "internal service": every answer carries SECRET in its body and in a header. */
async function internalService(): Promise<Rx> {
  const rx: Rx = { server: createServer(), port: 0, bodies: [], connections: 0 };
  rx.server.on('connection', () => rx.connections++);
  rx.server.on('request', (req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {}
      rx.bodies.push({ path: req.url ?? '/', json });
      const status = req.url?.startsWith('/fail') ? 500 : 200;
      res.writeHead(status, { 'content-type': 'text/plain', 'x-internal-token': SECRET, 'retry-after': '1' });
      res.end(`${SECRET} ${'x'.repeat(2000)}`);
    });
  });
  await new Promise<void>((r) => rx.server.listen(0, '127.0.0.1', r));
  rx.port = (rx.server.address() as AddressInfo).port;
  return rx;
}

test('attemptDelivery: an internal receiver answers status and timing, never its body', async () => {
  const rx = await internalService();
  const policy = createAddressPolicy({ allowHttp: true, allowlist: ['127.0.0.1'] });
  const dispatcher = createDispatcher(policy, { connectTimeoutMs: 1000, maxConnectionsPerOrigin: 2 });
  try {
    const url = `http://127.0.0.1:${rx.port}/fail`;
    const shown = await attemptDelivery({ url, body: '{}', headers: {}, dispatcher });
    assert.ok(shown.responseExcerpt?.startsWith(SECRET), 'the contrast: a public receiver keeps its excerpt');
    const hidden = await attemptDelivery({ url, body: '{}', headers: {}, dispatcher, internal: true });
    assert.equal(hidden.statusCode, 500);
    assert.equal(hidden.error, 'http_500');
    assert.equal(hidden.responseExcerpt, null);
    assert.ok(hidden.durationMs >= 0);
  } finally {
    await dispatcher.close();
    await new Promise((r) => rx.server.close(r));
  }
});

for (const engine of ENGINES) {
  describe(`allowlisted internal receivers are not readable through the API [${engine}]`, () => {
    let t: TestApp;
    let worker: Engine;
    let rx: Rx; // allowlisted with its port
    let other: Rx; // same address, another port: not allowlisted
    before(async () => {
      rx = await internalService();
      other = await internalService();
      t = await startTestApp(engine, {
        ...FAST_ENGINE_ENV,
        WEBHOOK_ALLOW_HTTP: 'true',
        WEBHOOK_ALLOWLIST: `127.0.0.1:${rx.port}`,
        WEBHOOK_RETRY_SCHEDULE: '10ms,10ms',
        WEBHOOK_TIMEOUT_MS: '5000',
        WEBHOOK_CONNECT_TIMEOUT_MS: '1000',
      });
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
    });
    after(async () => {
      await worker.stop();
      await t.close();
      for (const s of [rx, other]) await new Promise((r) => s.server.close(r));
    });

    const trigger = (url: string) =>
      t.request('POST', '/v2/webhooks/trigger', {
        body: { url, event: 'tracking_request.succeeded' },
        headers: { 'content-type': 'application/json' },
      });

    test('trigger: status and timing, no body and no header of the answer', async () => {
      for (const [path, status] of [
        ['/fail', 500],
        ['/ok', 200],
      ] as const) {
        const res = await trigger(`http://127.0.0.1:${rx.port}${path}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status_code, status);
        assert.equal(res.body.succeeded, status === 200);
        assert.equal(res.body.error, status === 200 ? null : 'http_500');
        assert.equal(typeof res.body.duration_ms, 'number');
        assert.ok(!res.text.includes(SECRET), res.text);
        assert.deepEqual(
          Object.keys(res.body).filter((k) => k.startsWith('response')),
          [],
          'no response_body or response_headers',
        );
      }
      assert.equal(rx.bodies.length >= 2, true, 'the receiver was reached');
    });

    test('a port not in the entry is refused on trigger, on save and on edit, and never dialled', async () => {
      const url = `http://127.0.0.1:${other.port}/hook`;
      const expectRefused = (res: { status: number; body: any; text: string }, pointer: string) => {
        assert.equal(res.status, 422, res.text);
        const [err] = res.body.errors;
        assert.equal(err.code, 'blocked_address');
        assert.equal(err.source.pointer, pointer);
        assert.match(err.detail, new RegExp(`loopback, port ${other.port} not allowlisted`));
      };
      expectRefused(await trigger(url), '/url');
      expectRefused(
        await t.request('POST', '/v2/webhooks', {
          body: { data: { type: 'webhook', attributes: { url } } },
        }),
        '/data/attributes/url',
      );
      const created = await t.request('POST', '/v2/webhooks', {
        body: { data: { type: 'webhook', attributes: { url: `http://127.0.0.1:${rx.port}/edit` } } },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id;
      expectRefused(
        await t.request('PATCH', `/v2/webhooks/${id}`, {
          body: { data: { id, type: 'webhook', attributes: { url } } },
        }),
        '/data/attributes/url',
      );
      await t.request('DELETE', `/v2/webhooks/${id}`);
      assert.equal(other.connections, 0);
    });

    test('deliveries: the attempt logs keep status and timing, never the body', async () => {
      const acct = await t.newAccount('leak');
      const hooks: Record<string, string> = {};
      for (const path of ['/fail', '/ok']) {
        const res = await t.request('POST', '/v2/webhooks', {
          key: acct.key,
          body: {
            data: {
              type: 'webhook',
              attributes: {
                url: `http://127.0.0.1:${rx.port}${path}?a=${acct.accountId}`,
                events: ['tracking_request.failed'],
              },
            },
          },
        });
        assert.equal(res.status, 201, res.text);
        hooks[path] = res.body.data.id;
      }
      const tr = await t.request('POST', '/v2/tracking_requests', {
        key: acct.key,
        body: trBody({ request_type: 'bill_of_lading', request_number: 'TEST-TR-FAILED', scac: 'TEST' }),
      });
      assert.equal(tr.status, 201, tr.text);
      worker.wake();

      const done = await eventually(async () => {
        const r = await t.request('GET', '/v2/webhook_notifications', { key: acct.key });
        const list = r.body.data as any[];
        return list.length === 2 && list.every((n) => n.attributes.delivery_status !== 'pending') && list;
      });
      for (const n of done) {
        const failing = n.relationships.webhook.data.id === hooks['/fail'];
        const one = await t.request('GET', `/v2/webhook_notifications/${n.id}`, { key: acct.key });
        assert.equal(one.status, 200);
        const attrs = one.body.data.attributes;
        assert.equal(attrs.delivery_status, failing ? 'failed' : 'succeeded');
        assert.equal(attrs.attempts.length, failing ? 3 : 1);
        for (const a of attrs.attempts) {
          assert.equal(a.status_code, failing ? 500 : 200);
          assert.equal(a.error, failing ? 'http_500' : null);
          assert.equal(typeof a.duration_ms, 'number');
          assert.equal(a.response_excerpt, null);
        }
        assert.ok(!one.text.includes(SECRET), one.text);
      }
      // Nor is it stored, where a later change of the rules could show it.
      const rows = await t.database.db
        .selectFrom('webhook_attempts')
        .select('response_excerpt')
        .where(
          'notification_id',
          'in',
          done.map((n: any) => n.id),
        )
        .execute();
      assert.equal(rows.length, 4);
      assert.deepEqual(
        rows.filter((r) => r.response_excerpt !== null),
        [],
      );
    });
  });
}
