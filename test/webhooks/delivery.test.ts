import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Engine } from '../../src/engine/start.ts';
import { standardSignature, verifyLegacy, verifyStandard } from '../../src/webhooks/delivery/sign.ts';
import { type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { LOOPBACK_WEBHOOKS, startWorkerApp, type WorkerApp } from '../helpers/worker-app.ts';

const ENV = {
  ...LOOPBACK_WEBHOOKS,
  WEBHOOK_RETRY_SCHEDULE: Array(12).fill('10ms').join(','),
  WEBHOOK_TIMEOUT_MS: '10000',
  WEBHOOK_CONNECT_TIMEOUT_MS: '500',
};

for (const engine of ENGINES) {
  describe(`webhook delivery [${engine}]`, () => {
    let app: WorkerApp;
    let t: TestApp;
    let worker: Engine;
    let rx: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      app = await startWorkerApp(engine, ENV);
      ({ t, worker } = app);
      rx = await startReceiver();
    });
    after(async () => {
      await rx.close(); // ends hanging responses, so in-flight attempts finish at once
      await app.close();
    });

    /** A fresh account with one webhook, so each test sees only its own notifications. */
    async function setup(path: string, events: string[], extra: Record<string, unknown> = {}) {
      const acct = await t.newAccount(path);
      const res = await t.request('POST', '/v2/webhooks', {
        key: acct.key,
        body: { data: { type: 'webhook', attributes: { url: rx.url(path), events, ...extra } } },
      });
      assert.equal(res.status, 201, res.text);
      return { key: acct.key, webhook: res.body.data };
    }

    async function track(key: string, number: string, scac = 'TEST') {
      const res = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: trBody({ request_type: 'bill_of_lading', request_number: number, scac }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      return res.body.data.id as string;
    }

    test('deliveries are signed both ways and carry the notification and its records', async () => {
      const { key, webhook } = await setup('/signed', [
        'tracking_request.succeeded',
        'tracking_request.failed',
      ]);
      const trId = await track(key, 'TEST-TR-SUCCEEDED');
      const [got] = await eventually(async () => rx.at('/signed').length > 0 && rx.at('/signed'));
      const secret = webhook.attributes.secret as string;
      assert.match(secret, /^whsec_/);
      assert.ok(verifyLegacy(secret, got!.body, got!.headers['x-service-webhook-signature'] as string));
      const std = verifyStandard({
        secret,
        headers: got!.headers as Record<string, string>,
        body: got!.body,
      });
      assert.deepEqual(std, { ok: true });
      const id = got!.json.data.id;
      assert.equal(got!.headers['webhook-id'], id);
      assert.equal(
        (got!.headers['webhook-signature'] as string).split(' ')[0],
        standardSignature(secret, id, Number(got!.headers['webhook-timestamp']), got!.body),
      );
      assert.equal(got!.headers['content-type'], 'application/json');
      assert.equal(got!.json.data.type, 'webhook_notification');
      assert.equal(got!.json.data.attributes.event, 'tracking_request.succeeded');
      assert.deepEqual(got!.json.data.relationships.reference_object.data, {
        type: 'tracking_request',
        id: trId,
      });
      const types = new Set(got!.json.included.map((r: any) => r.type));
      assert.ok(types.has('tracking_request') && types.has('shipment'), [...types].join());
      const n = await eventually(async () => {
        const r = await t.request('GET', `/v2/webhook_notifications/${id}`, { key });
        return r.body.data.attributes.delivery_status === 'succeeded' && r.body.data;
      });
      assert.equal(n.relationships.webhook.data.id, webhook.id);
    });

    test('a receiver that fails 3 times then succeeds gets the same data.id 4 times', async () => {
      rx.on('/flaky', (_r, n) => ({ status: n <= 3 ? 500 : 200 }));
      const { key } = await setup('/flaky', ['tracking_request.failed']);
      await track(key, 'TEST-TR-FAILED');
      await eventually(async () => rx.at('/flaky').length >= 4);
      const ids = rx.at('/flaky').map((r) => r.json.data.id);
      assert.equal(new Set(ids).size, 1);
      const id = ids[0];
      const n = await eventually(async () => {
        const r = await t.request('GET', `/v2/webhook_notifications/${id}`, { key });
        return r.body.data.attributes.delivery_status === 'succeeded' && r.body.data;
      });
      assert.equal(n.attributes.attempt_count, 4);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(rx.at('/flaky').length, 4, 'no delivery after the acknowledgement');
      // Every attempt carried the exact same body.
      assert.equal(new Set(rx.at('/flaky').map((r) => r.body)).size, 1);
    });

    test('a receiver that always fails: failed after exactly 13 attempts', async () => {
      rx.on('/down', () => ({ status: 503 }));
      const { key } = await setup('/down', ['tracking_request.failed']);
      await track(key, 'TEST-TR-FAILED');
      const id = (await eventually(async () => rx.at('/down')[0]))!.json.data.id;
      const n = await eventually(async () => {
        const r = await t.request('GET', `/v2/webhook_notifications/${id}`, { key });
        return r.body.data.attributes.delivery_status === 'failed' && r.body.data;
      });
      assert.equal(n.attributes.attempt_count, 13);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(rx.at('/down').length, 13);
    });

    test('a hanging endpoint does not delay another endpoint', async () => {
      rx.on('/hang', () => ({ status: 200, hang: true }));
      const slow = await setup('/hang', ['tracking_request.failed']);
      const fast = await setup('/fast', ['tracking_request.failed']);
      // One at a time: a second request for the same number is a duplicate while one is pending.
      const settle = async (key: string) => {
        const id = await track(key, 'TEST-TR-FAILED');
        await eventually(
          async () =>
            (await t.request('GET', `/v2/tracking_requests/${id}`, { key })).body.data.attributes.status ===
            'failed',
        );
      };
      for (let i = 0; i < 6; i++) await settle(slow.key);
      await eventually(async () => rx.at('/hang').length >= 1);
      const started = Date.now();
      for (let i = 0; i < 3; i++) await settle(fast.key);
      await eventually(async () => rx.at('/fast').length >= 3, 8000);
      const waited = Date.now() - started;
      // The slow endpoint's attempts are all still hanging (10 s time-out): none has been logged yet.
      const slowAttempts = await t.database.db
        .selectFrom('webhook_attempts as a')
        .innerJoin('webhook_notifications as n', 'n.id', 'a.notification_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('n.webhook_id', '=', slow.webhook.id)
        .executeTakeFirstOrThrow();
      assert.equal(Number(slowAttempts.n), 0, 'the fast deliveries finished while the slow ones still hung');
      assert.ok(waited < 8000, `fast endpoint waited ${waited} ms`);
    });

    test('410 Gone deactivates; no notifications while inactive; active: true reactivates', async () => {
      rx.on('/gone', () => ({ status: 410 }));
      const { key, webhook } = await setup('/gone', ['tracking_request.failed']);
      await track(key, 'TEST-TR-FAILED');
      const w = await eventually(async () => {
        const r = await t.request('GET', `/v2/webhooks/${webhook.id}`, { key });
        return r.body.data.attributes.active === false && r.body.data;
      });
      assert.ok(w.attributes.deactivated_at);
      const before = (await t.request('GET', '/v2/webhook_notifications', { key })).body.meta.total;
      await track(key, 'TEST-TR-FAILED');
      await eventually(async () => {
        const r = await t.request('GET', '/v2/tracking_requests?filter[status]=failed', { key });
        return r.body.meta.total === 2;
      });
      assert.equal((await t.request('GET', '/v2/webhook_notifications', { key })).body.meta.total, before);
      rx.on('/gone', () => ({ status: 204 }));
      const re = await t.request('PATCH', `/v2/webhooks/${webhook.id}`, {
        key,
        body: { data: { type: 'webhook', attributes: { active: true } } },
      });
      assert.equal(re.body.data.attributes.active, true);
      const count = rx.at('/gone').length;
      await track(key, 'TEST-TR-FAILED');
      await eventually(async () => rx.at('/gone').length > count);
    });

    test('subscription is per event', async () => {
      const { key } = await setup('/only-failed', ['tracking_request.failed']);
      await track(key, 'TEST-TR-SUCCEEDED');
      await track(key, 'TEST-TR-FAILED');
      await eventually(async () => rx.at('/only-failed').length >= 1);
      await new Promise((r) => setTimeout(r, 300));
      const events = rx.at('/only-failed').map((r) => r.json.data.attributes.event);
      assert.deepEqual(events, ['tracking_request.failed']);
    });

    test('redeliver sends the same notification again', async () => {
      const { key } = await setup('/again', ['tracking_request.failed']);
      await track(key, 'TEST-TR-FAILED');
      const first = await eventually(async () => rx.at('/again')[0]);
      const id = first.json.data.id;
      await eventually(async () => {
        const r = await t.request('GET', `/v2/webhook_notifications/${id}`, { key });
        return r.body.data.attributes.delivery_status === 'succeeded';
      });
      const res = await t.request('POST', `/v2/webhook_notifications/${id}/redeliver`, { key });
      assert.equal(res.status, 202);
      worker.wake();
      await eventually(async () => rx.at('/again').length === 2);
      assert.equal(rx.at('/again')[1]!.json.data.id, id);
      assert.equal(rx.at('/again')[1]!.body, first.body);
    });
  });
}
