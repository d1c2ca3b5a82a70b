import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { recordDomainEvents } from '../../src/domain-events/record.ts';
import type { Engine } from '../../src/engine/start.ts';
import { settleSucceeded } from '../../src/webhooks/delivery/settle.ts';
import { verifyLegacy } from '../../src/webhooks/delivery/sign.ts';
import type { TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { seedShipment } from '../helpers/seed.ts';
import { LOOPBACK_WEBHOOKS, startWorkerApp, type WorkerApp } from '../helpers/worker-app.ts';

// The delivery loop claims, renders and settles in batches and claims ahead of sending. A burst of
// notifications must still respect the limits (per webhook and overall), reach every receiver
// exactly once when nothing fails, and send exactly the body that is stored.

const EVENT = 'container.transport.vessel_arrived';
const ENV = {
  ...LOOPBACK_WEBHOOKS,
  WEBHOOK_CONCURRENCY: '6',
  WEBHOOK_PER_ENDPOINT_CONCURRENCY: '4',
};

for (const engine of ENGINES) {
  describe(`batched delivery [${engine}]`, () => {
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
      await rx.close();
      await app.close();
    });

    test('a burst respects both limits and reaches each receiver once per notification', async () => {
      const N = 40;
      const paths = ['/burst-a', '/burst-b', '/burst-c'];
      const inFlight = new Map<string, number>();
      const most = new Map<string, number>();
      let overall = 0;
      let mostOverall = 0;
      for (const path of paths) {
        rx.on(path, () => {
          inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
          most.set(path, Math.max(most.get(path) ?? 0, inFlight.get(path)!));
          mostOverall = Math.max(mostOverall, ++overall);
          setTimeout(() => {
            inFlight.set(path, inFlight.get(path)! - 1);
            overall--;
          }, 15);
          return { status: 204, delayMs: 15 };
        });
      }
      const acct = await t.newAccount('burst');
      // Seeded before the webhooks exist: the engine's own vessel_arrived events make no notifications.
      const sh = await seedShipment(t.database.db, acct.accountId);
      const secrets = new Map<string, string>();
      for (const path of paths) {
        const res = await t.request('POST', '/v2/webhooks', {
          key: acct.key,
          body: { data: { type: 'webhook', attributes: { url: rx.url(path), events: [EVENT] } } },
        });
        assert.equal(res.status, 201, res.text);
        secrets.set(path, res.body.data.attributes.secret);
      }
      const containerId = sh.containerIds[0]!;
      const eventIds = sh.transportEventIds.get(containerId)!;
      await t.database.db.transaction().execute((tx) =>
        recordDomainEvents(
          tx,
          Array.from({ length: N }, (_, i) => ({
            event: EVENT,
            account_id: acct.accountId,
            shipment_id: sh.shipmentId,
            container_id: containerId,
            reference_type: 'transport_event',
            reference_id: eventIds[i % eventIds.length]!,
          })),
        ),
      );
      worker.wake('webhook');
      await eventually(async () => paths.every((p) => rx.at(p).length >= N), 20_000, 'every delivery');
      // The last batch is written back after its answers arrive: wait for it, not a fixed time.
      const notifications = () =>
        t.database.db
          .selectFrom('webhook_notifications')
          .select(['id', 'body', 'delivery_status', 'attempt_count'])
          .where('account_id', '=', acct.accountId)
          .execute();
      await eventually(
        async () => (await notifications()).every((n) => n.delivery_status === 'succeeded'),
        10_000,
        'every delivery settled',
      );

      const stored = await notifications();
      assert.equal(stored.length, N * paths.length);
      const bodies = new Map(stored.map((n) => [n.id, n.body]));
      for (const n of stored) {
        assert.equal(n.delivery_status, 'succeeded');
        assert.equal(n.attempt_count, 1);
      }
      for (const path of paths) {
        const got = rx.at(path);
        assert.equal(got.length, N, `${path}: one request per notification`);
        assert.equal(new Set(got.map((r) => r.json.data.id)).size, N);
        for (const r of got) {
          assert.equal(r.body, bodies.get(r.json.data.id), 'the stored body is what was sent');
          assert.ok(
            verifyLegacy(secrets.get(path)!, r.body, r.headers['x-service-webhook-signature'] as string),
          );
        }
        assert.ok(most.get(path)! <= 4, `${path}: ${most.get(path)} in flight at once (limit 4)`);
      }
      assert.ok(mostOverall <= 6, `${mostOverall} in flight at once overall (limit 6)`);
      assert.ok(mostOverall >= 2, 'deliveries ran side by side');
      const attempts = await sql<{ n: number }>`
        select count(*)::int as n from webhook_attempts a
          join webhook_notifications n on n.id = a.notification_id
         where n.account_id = ${acct.accountId}`.execute(t.database.db);
      assert.equal(attempts.rows[0]!.n, N * paths.length, 'one attempt logged per delivery');
    });

    test('a batch settle writes nothing for a notification whose lease is not ours', async () => {
      const acct = await t.newAccount('lease');
      const res = await t.request('POST', '/v2/webhooks', {
        key: acct.key,
        body: {
          data: { type: 'webhook', attributes: { url: rx.url('/unused'), events: [EVENT], active: false } },
        },
      });
      assert.equal(res.status, 201, res.text);
      // Inactive webhooks get no notifications: insert two by hand, leased by two other owners.
      const sh = await seedShipment(t.database.db, acct.accountId);
      const [domainId] = await t.database.db.transaction().execute((tx) =>
        recordDomainEvents(tx, [
          {
            event: EVENT,
            account_id: acct.accountId,
            reference_type: 'shipment',
            reference_id: sh.shipmentId,
          },
        ]),
      );
      const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
      await t.database.db
        .insertInto('webhook_notifications')
        .values(
          ids.map((id, i) => ({
            id,
            account_id: acct.accountId,
            webhook_id: res.body.data.id,
            domain_event_id: domainId!,
            event: EVENT,
            lease_owner: i === 0 ? 'me' : 'someone-else',
            lease_expires_at: new Date(Date.now() + 60_000),
          })),
        )
        .execute();
      const done = new Date();
      const settled = await settleSucceeded(
        t.database.db,
        'me',
        ids.map((id) => ({ id, attempts: 1, done, statusCode: 204, durationMs: 3, excerpt: '' })),
      );
      assert.deepEqual([...settled], [ids[0]]);
      const rows = await t.database.db
        .selectFrom('webhook_notifications')
        .select(['id', 'delivery_status', 'lease_owner'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.delivery_status, r.lease_owner]),
        [
          ['succeeded', null],
          ['pending', 'someone-else'],
        ],
      );
      const logged = await t.database.db
        .selectFrom('webhook_attempts')
        .select('notification_id')
        .where('notification_id', 'in', ids)
        .execute();
      assert.deepEqual(
        logged.map((a) => a.notification_id),
        [ids[0]],
      );
    });
  });
}
