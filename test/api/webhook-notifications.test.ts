import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { recordDomainEvents } from '../../src/domain-events/record.ts';
import { EVENT_NAMES } from '../../src/webhooks/catalogue.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { LOOPBACK_WEBHOOKS } from '../helpers/worker-app.ts';

const LOCAL = {
  RATE_LIMIT_CREATE_PER_MINUTE: '1000',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '1000',
  ...LOOPBACK_WEBHOOKS,
};

const whBody = (attributes: Record<string, unknown>) => ({ data: { type: 'webhook', attributes } });

for (const engine of ENGINES) {
  describe(`webhook notifications [${engine}]`, () => {
    let t: TestApp;
    // A: three events; B: every event; C: every event but inactive (gets nothing).
    let A: string;
    let B: string;
    let C: string;
    const ids = {
      trackingRequest: randomUUID(),
      shipment: randomUUID(),
      container: randomUUID(),
      event: randomUUID(),
    };

    before(async () => {
      t = await startTestApp(engine, LOCAL);
      const mk = async (attributes: Record<string, unknown>) =>
        (
          await t.request('POST', '/v2/webhooks', {
            body: whBody({ url: 'http://127.0.0.1:9/n', ...attributes }),
          })
        ).body.data.id as string;
      A = await mk({
        events: ['tracking_request.succeeded', 'container.transport.vessel_arrived', 'container.created'],
      });
      B = await mk({});
      C = await mk({ active: false });

      const db = t.database.db;
      await db
        .insertInto('shipments')
        .values({
          id: ids.shipment,
          account_id: t.accountId,
          scac: 'MSCU',
          request_type: 'bill_of_lading',
          normalized_number: 'MEDUFR030802',
          bill_of_lading_number: 'MEDUFR030802',
        })
        .execute();
      await db
        .insertInto('tracking_requests')
        .values({
          id: ids.trackingRequest,
          account_id: t.accountId,
          request_number: 'MEDUFR030802',
          request_type: 'bill_of_lading',
          scac: 'MSCU',
          status: 'created',
          shipment_id: ids.shipment,
        })
        .execute();
      await db
        .insertInto('containers')
        .values({
          id: ids.container,
          account_id: t.accountId,
          shipment_id: ids.shipment,
          number: 'CSQU3054383',
        })
        .execute();
      await db
        .insertInto('transport_events')
        .values({
          id: ids.event,
          account_id: t.accountId,
          shipment_id: ids.shipment,
          container_id: ids.container,
          key: 'vessel_arrived|NLRTM',
          event: 'container.transport.vessel_arrived',
          timestamp: new Date('2026-01-10T08:00:00Z'),
          location_locode: 'NLRTM',
          data_source: 'shipping_line',
        })
        .execute();
      const base = {
        account_id: t.accountId,
        tracking_request_id: ids.trackingRequest,
        shipment_id: ids.shipment,
      };
      // One call per event, as the engine does per change: each gets its own created_at. PGlite keeps
      // it to the millisecond and ties sort by random id, so the calls are a few milliseconds apart.
      const apart = () => new Promise((r) => setTimeout(r, 2));
      await recordDomainEvents(db, [
        {
          ...base,
          event: 'tracking_request.succeeded',
          reference_type: 'tracking_request',
          reference_id: ids.trackingRequest,
        },
      ]);
      await apart();
      await recordDomainEvents(db, [
        {
          ...base,
          container_id: ids.container,
          event: 'container.transport.vessel_arrived',
          reference_type: 'transport_event',
          reference_id: ids.event,
        },
      ]);
      await apart();
      await recordDomainEvents(db, [
        {
          ...base,
          container_id: ids.container,
          event: 'container.created',
          reference_type: 'container_created_event',
        },
      ]);
      await apart();
      await recordDomainEvents(db, [
        {
          ...base,
          container_id: ids.container,
          event: 'container.pickup_lfd.changed',
          reference_type: 'container',
          reference_id: ids.container,
        },
      ]);
    });
    after(() => t.close());

    const list = (qs = '', key?: string) =>
      t.request('GET', `/v2/webhook_notifications${qs}`, key ? { key } : {});
    const of = async (webhookId: string, event: string) => {
      const res = await list(`?filter[webhook_id]=${webhookId}&filter[event]=${event}`);
      assert.equal(res.body.data.length, 1, `${webhookId} ${event}`);
      return res.body.data[0].id as string;
    };
    /** What the delivery worker would have written after some attempts. */
    const settle = async (
      id: string,
      status: 'failed' | 'succeeded' | 'pending',
      extra: Record<string, unknown> = {},
    ) =>
      t.database.db
        .updateTable('webhook_notifications')
        .set({
          delivery_status: status,
          attempt_count: 2,
          last_attempt_at: new Date(),
          next_attempt_at: status === 'pending' ? new Date(Date.now() + 60_000) : null,
          delivered_at: status === 'succeeded' ? new Date() : null,
          body: `{"data":{"id":"${id}","type":"webhook_notification"}}`,
          ...extra,
        })
        .where('id', '=', id)
        .execute();
    const row = (id: string) =>
      t.database.db
        .selectFrom('webhook_notifications')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    test('list: one notification per event per subscribed active webhook, newest first', async () => {
      const res = await list();
      assert.equal(res.status, 200);
      assert.equal(res.body.meta.total, 7);
      const byWebhook = (w: string) =>
        res.body.data.filter((d: any) => d.relationships.webhook.data.id === w);
      assert.equal(byWebhook(A).length, 3);
      assert.equal(byWebhook(B).length, 4);
      assert.equal(byWebhook(C).length, 0, 'inactive webhooks get nothing');
      const created = res.body.data.map((d: any) => d.attributes.created_at);
      assert.deepEqual(created, [...created].sort().reverse());
      assert.equal(res.body.data[0].attributes.event, 'container.pickup_lfd.changed');
      for (const d of res.body.data) {
        assert.equal(d.type, 'webhook_notification');
        assert.equal(d.attributes.delivery_status, 'pending');
        assert.equal(d.attributes.attempt_count, 0);
        assert.deepEqual(d.attributes.attempts, []);
        assert.ok(d.attributes.next_attempt_at);
        assert.equal(d.attributes.delivered_at, null);
        assert.equal(d.links.self, `/v2/webhook_notifications/${d.id}`);
      }
      const tr = res.body.data.find((d: any) => d.attributes.event === 'tracking_request.succeeded');
      assert.deepEqual(tr.relationships.reference_object.data, {
        type: 'tracking_request',
        id: ids.trackingRequest,
      });
      const te = res.body.data.find((d: any) => d.attributes.event === 'container.transport.vessel_arrived');
      assert.deepEqual(te.relationships.reference_object.data, { type: 'transport_event', id: ids.event });
      const cc = res.body.data.find((d: any) => d.attributes.event === 'container.created');
      assert.equal(cc.relationships.reference_object.data.type, 'container_created_event');
      const paged = await list('?page[size]=2&page[number]=4');
      assert.equal(paged.body.data.length, 1);
      assert.ok(paged.body.links.prev && !paged.body.links.next);
    });

    test('filters: webhook_id, event, delivery_status, created_at; bad values are 400', async () => {
      assert.equal((await list(`?filter[webhook_id]=${A}`)).body.meta.total, 3);
      assert.equal((await list('?filter[event]=container.created')).body.meta.total, 2);
      assert.equal(
        (await list(`?filter[event]=container.created&filter[webhook_id]=${B}`)).body.meta.total,
        1,
      );
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const past = '2001-01-01T00:00:00Z';
      assert.equal((await list(`?filter[created_at][start]=${future}`)).body.meta.total, 0);
      assert.equal((await list(`?filter[created_at][end]=${past}`)).body.meta.total, 0);
      assert.equal(
        (await list(`?filter[created_at][start]=${past}&filter[created_at][end]=${future}`)).body.meta.total,
        7,
      );
      const id = await of(B, 'container.created');
      await settle(id, 'failed');
      const failed = await list('?filter[delivery_status]=failed');
      assert.deepEqual(
        failed.body.data.map((d: any) => d.id),
        [id],
      );
      await settle(id, 'pending', { attempt_count: 0, next_attempt_at: new Date(), body: null });
      for (const [qs, parameter] of [
        ['?filter[delivery_status]=lost', 'filter[delivery_status]'],
        ['?filter[event]=tracking_request.exploded', 'filter[event]'],
        ['?filter[webhook_id]=abc', 'filter[webhook_id]'],
        ['?filter[created_at][start]=yesterday', 'filter[created_at][start]'],
      ] as const) {
        const res = await list(qs);
        assert.equal(res.status, 400, qs);
        assert.equal(res.body.errors[0].source.parameter, parameter, qs);
      }
      // Unknown parameters are ignored, as the reference does.
      assert.equal((await list('?filter[colour]=red')).status, 200);
    });

    test('get: the attempt log, with response excerpts only on the single notification', async () => {
      const id = await of(A, 'tracking_request.succeeded');
      await settle(id, 'failed');
      await t.database.db
        .insertInto('webhook_attempts')
        .values([
          {
            notification_id: id,
            status_code: 500,
            error: 'http_500',
            duration_ms: 12,
            response_excerpt: 'oops',
          },
          {
            notification_id: id,
            status_code: null,
            error: 'timeout',
            duration_ms: 15000,
            response_excerpt: null,
          },
        ])
        .execute();
      const res = await t.request('GET', `/v2/webhook_notifications/${id}`);
      assert.equal(res.status, 200);
      const a = res.body.data.attributes;
      assert.equal(a.event, 'tracking_request.succeeded');
      assert.equal(a.delivery_status, 'failed');
      assert.equal(a.attempt_count, 2);
      assert.equal(a.next_attempt_at, null);
      assert.ok(a.last_attempt_at);
      assert.equal(a.attempts.length, 2);
      assert.deepEqual(
        a.attempts.map((x: any) => [x.status_code, x.error, x.duration_ms, x.response_excerpt]),
        [
          [500, 'http_500', 12, 'oops'],
          [null, 'timeout', 15000, null],
        ],
      );
      assert.ok(a.attempts[0].attempted_at);
      assert.deepEqual(res.body.data.relationships.webhook.data, { type: 'webhook', id: A });
      assert.equal(res.body.included, undefined);
      const listed = (await list(`?filter[webhook_id]=${A}&filter[event]=tracking_request.succeeded`)).body
        .data[0];
      assert.equal(listed.attributes.attempts.length, 2);
      assert.equal('response_excerpt' in listed.attributes.attempts[0], false);
      assert.equal((await t.request('GET', '/v2/webhook_notifications/nope')).status, 404);
      assert.equal((await t.request('GET', `/v2/webhook_notifications/${randomUUID()}`)).status, 404);
    });

    test('include=webhook,reference_object adds the webhooks and the reference objects', async () => {
      const res = await list('?include=webhook,reference_object');
      assert.equal(res.status, 200);
      const inc = res.body.included as any[];
      const keys = inc.map((r) => `${r.type}:${r.id}`);
      assert.equal(new Set(keys).size, keys.length, 'each once');
      assert.ok(keys.includes(`webhook:${A}`) && keys.includes(`webhook:${B}`));
      assert.ok(!keys.includes(`webhook:${C}`));
      const tr = inc.find((r) => r.type === 'tracking_request');
      assert.equal(tr.id, ids.trackingRequest);
      assert.equal(tr.attributes.request_number, 'MEDUFR030802');
      const te = inc.find((r) => r.type === 'transport_event');
      assert.equal(te.id, ids.event);
      assert.equal(te.attributes.event, 'container.transport.vessel_arrived');
      const c = inc.find((r) => r.type === 'container');
      assert.equal(c.id, ids.container);
      assert.equal(c.attributes.number, 'CSQU3054383');
      const wh = inc.find((r) => r.type === 'webhook');
      assert.match(wh.attributes.secret, /^whsec_/);

      const onlyWebhooks = await list('?include=webhook');
      assert.ok(onlyWebhooks.body.included.every((r: any) => r.type === 'webhook'));
      const id = await of(A, 'container.transport.vessel_arrived');
      const one = await t.request('GET', `/v2/webhook_notifications/${id}?include=reference_object`);
      assert.deepEqual(
        one.body.included.map((r: any) => `${r.type}:${r.id}`),
        [`transport_event:${ids.event}`],
      );
      const bad = await list('?include=shipment');
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].source.parameter, 'include');
    });

    test('another account sees none of these notifications and cannot redeliver them', async () => {
      const other = await t.newAccount();
      assert.equal((await list('', other.key)).body.meta.total, 0);
      assert.equal((await list(`?filter[webhook_id]=${A}`, other.key)).body.meta.total, 0);
      const id = await of(A, 'container.created');
      const path = `/v2/webhook_notifications/${id}`;
      assert.equal((await t.request('GET', path, { key: other.key })).status, 404);
      assert.equal((await t.request('POST', `${path}/redeliver`, { key: other.key })).status, 404);
      const bulk = await t.request('POST', '/v2/webhook_notifications/redeliver', {
        key: other.key,
        body: { webhook_id: A },
      });
      assert.equal(bulk.status, 404);
      const included = await list('?include=webhook,reference_object', other.key);
      assert.deepEqual(included.body.included, []);
    });

    test('examples: the body for one event, or one example of every event', async () => {
      const one = await t.request(
        'GET',
        '/v2/webhook_notifications/examples?event=tracking_request.succeeded',
      );
      assert.equal(one.status, 200);
      // An array of one, as the reference document says (issue 13).
      assert.equal(one.body.data.length, 1);
      assert.equal(one.body.data[0].type, 'webhook_notification');
      assert.match(one.body.data[0].id, /^[0-9a-f-]{36}$/);
      assert.equal(one.body.data[0].attributes.event, 'tracking_request.succeeded');
      assert.equal(one.body.meta.total, 1);
      assert.ok(Array.isArray(one.body.included));
      const ref = one.body.data[0].relationships.reference_object.data;
      assert.ok(one.body.included.some((r: any) => r.type === ref.type && r.id === ref.id));

      const all = await t.request('GET', '/v2/webhook_notifications/examples');
      assert.equal(all.status, 200);
      assert.equal(all.body.data.length, 43);
      assert.equal(all.body.meta.total, 43);
      assert.deepEqual(
        all.body.data.map((d: any) => d.attributes.event),
        [...EVENT_NAMES],
      );
      assert.ok(all.body.included.length > 0);

      const unknown = await t.request('GET', '/v2/webhook_notifications/examples?event=nope');
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.errors[0].source.parameter, 'event');
      // Examples are never stored.
      assert.equal((await list()).body.meta.total, 7);
    });

    test('redeliver one: failed and succeeded ones are queued again with the same body', async () => {
      const failedId = await of(A, 'container.transport.vessel_arrived');
      await settle(failedId, 'failed', {
        lease_owner: 'gone-worker',
        lease_expires_at: new Date(Date.now() - 1000),
      });
      await t.database.db
        .insertInto('webhook_attempts')
        .values({ notification_id: failedId, status_code: 503, error: 'http_503', duration_ms: 5 })
        .execute();
      const bodyBefore = (await row(failedId)).body;
      const res = await t.request('POST', `/v2/webhook_notifications/${failedId}/redeliver`);
      assert.equal(res.status, 202);
      const a = res.body.data.attributes;
      assert.equal(res.body.data.id, failedId);
      assert.equal(a.delivery_status, 'pending');
      assert.equal(a.attempt_count, 0);
      assert.ok(a.next_attempt_at && Date.parse(a.next_attempt_at) <= Date.now() + 1000);
      assert.equal(a.attempts.length, 1, 'the attempt log is kept');
      const r = await row(failedId);
      assert.equal(r.body, bodyBefore, 'the same notification is delivered again');
      assert.equal(r.lease_owner, null);
      assert.equal(r.lease_expires_at, null);

      const okId = await of(B, 'container.transport.vessel_arrived');
      await settle(okId, 'succeeded');
      const again = await t.request('POST', `/v2/webhook_notifications/${okId}/redeliver`);
      assert.equal(again.status, 202);
      assert.equal(again.body.data.attributes.delivery_status, 'pending');

      // A pending one a worker is delivering right now keeps its lease.
      const busyId = await of(B, 'tracking_request.succeeded');
      const lease = new Date(Date.now() + 60_000);
      await settle(busyId, 'pending', { lease_owner: 'worker-1', lease_expires_at: lease });
      assert.equal((await t.request('POST', `/v2/webhook_notifications/${busyId}/redeliver`)).status, 202);
      const busy = await row(busyId);
      assert.equal(busy.lease_owner, 'worker-1');
      assert.equal(busy.attempt_count, 2);
      await settle(busyId, 'pending', { lease_owner: null, lease_expires_at: null, attempt_count: 0 });

      assert.equal(
        (await t.request('POST', `/v2/webhook_notifications/${randomUUID()}/redeliver`)).status,
        404,
      );
    });

    test('redeliver wakes the in-process worker', async () => {
      const kinds: string[] = [];
      const app = await buildApp({
        config: t.config,
        database: t.database,
        baseUrl: '',
        notifyWork: (kind) => kinds.push(kind),
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const { port } = app.server.address() as { port: number };
        const id = await of(A, 'container.created');
        const res = await fetch(`http://127.0.0.1:${port}/v2/webhook_notifications/${id}/redeliver`, {
          method: 'POST',
          headers: { authorization: `Token ${t.key}` },
        });
        assert.equal(res.status, 202);
        assert.deepEqual(kinds, ['webhook']);
      } finally {
        await app.close();
      }
    });

    test('redeliver to an inactive webhook is 409 until it is reactivated', async () => {
      const id = await of(A, 'container.created');
      await settle(id, 'failed');
      await t.request('PATCH', `/v2/webhooks/${A}`, { body: whBody({ active: false }) });
      const res = await t.request('POST', `/v2/webhook_notifications/${id}/redeliver`);
      assert.equal(res.status, 409);
      assert.equal(res.body.errors[0].code, 'webhook_inactive');
      const bulk = await t.request('POST', '/v2/webhook_notifications/redeliver', {
        body: { webhook_id: A },
      });
      assert.equal(bulk.status, 409);
      assert.equal((await row(id)).delivery_status, 'failed');
      await t.request('PATCH', `/v2/webhooks/${A}`, { body: whBody({ active: true }) });
      assert.equal((await t.request('POST', `/v2/webhook_notifications/${id}/redeliver`)).status, 202);
    });

    test('bulk redeliver: a webhook’s failed (or succeeded) notifications, optionally by created_at', async () => {
      const [n1, n2, n3] = [
        await of(A, 'tracking_request.succeeded'),
        await of(A, 'container.transport.vessel_arrived'),
        await of(A, 'container.created'),
      ];
      await settle(n1!, 'failed');
      await settle(n2!, 'failed');
      await settle(n3!, 'succeeded');
      const bFailed = await of(B, 'container.created');
      await settle(bFailed, 'failed');
      const post = (body: unknown) =>
        t.request('POST', '/v2/webhook_notifications/redeliver', {
          body,
          headers: { 'content-type': 'application/json' },
        });

      const none = await post({ webhook_id: A, created_at_end: '2001-01-01T00:00:00Z' });
      assert.equal(none.status, 202);
      assert.deepEqual(none.body.meta, { redelivered: 0, remaining: 0 });

      const res = await post({ webhook_id: A });
      assert.equal(res.status, 202);
      assert.deepEqual(res.body.meta, { redelivered: 2, remaining: 0 });
      for (const id of [n1!, n2!]) {
        const r = await row(id);
        assert.equal(r.delivery_status, 'pending');
        assert.equal(r.attempt_count, 0);
      }
      assert.equal((await row(n3!)).delivery_status, 'succeeded');
      assert.equal((await row(bFailed)).delivery_status, 'failed', "another webhook's stay");

      const ok = await post({
        webhook_id: A,
        delivery_status: 'succeeded',
        created_at_start: '2001-01-01T00:00:00Z',
        created_at_end: new Date(Date.now() + 60_000).toISOString(),
      });
      assert.deepEqual(ok.body.meta, { redelivered: 1, remaining: 0 });
      assert.equal((await row(n3!)).delivery_status, 'pending');

      for (const [body, pointer] of [
        [{}, '/webhook_id'],
        [{ webhook_id: 'abc' }, '/webhook_id'],
        [{ webhook_id: A, delivery_status: 'pending' }, '/delivery_status'],
        [{ webhook_id: A, created_at_start: 'yesterday' }, '/created_at_start'],
        [{ webhook_id: A, colour: 'red' }, '/colour'],
      ] as const) {
        const bad = await post(body);
        assert.equal(bad.status, 422, JSON.stringify(body));
        assert.equal(bad.body.errors[0].source.pointer, pointer, JSON.stringify(body));
      }
      assert.equal((await post({ webhook_id: randomUUID() })).status, 404);
    });

    test('bulk redeliver queues at most 10,000 per call and says how many remain', async () => {
      const domainEventId = (
        await t.database.db
          .selectFrom('webhook_notifications')
          .select('domain_event_id')
          .where('webhook_id', '=', B)
          .executeTakeFirstOrThrow()
      ).domain_event_id;
      await sql`
        insert into webhook_notifications (id, account_id, webhook_id, domain_event_id, event, delivery_status, attempt_count)
        select gen_random_uuid(), ${t.accountId}::uuid, ${B}::uuid, ${domainEventId}::uuid, 'container.created', 'failed', 13
          from generate_series(1, 10001)`.execute(t.database.db);
      const before = (await list(`?filter[webhook_id]=${B}&filter[delivery_status]=failed`)).body.meta.total;
      assert.equal(before, 10002); // and the one failed earlier
      const first = await t.request('POST', '/v2/webhook_notifications/redeliver', {
        body: { webhook_id: B },
      });
      assert.equal(first.status, 202);
      assert.deepEqual(first.body.meta, { redelivered: 10_000, remaining: 2 });
      const second = await t.request('POST', '/v2/webhook_notifications/redeliver', {
        body: { webhook_id: B },
      });
      assert.deepEqual(second.body.meta, { redelivered: 2, remaining: 0 });
    });

    test('deleting a webhook removes its notifications from the list', async () => {
      const res = await t.request('DELETE', `/v2/webhooks/${B}`);
      assert.equal(res.status, 200);
      assert.equal((await list(`?filter[webhook_id]=${B}`)).body.meta.total, 0);
      assert.equal((await list()).body.meta.total, 3);
    });
  });
}
