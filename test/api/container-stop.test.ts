// Issue 32, item 2: stopping and resuming one container's tracking over HTTP, as a user does,
// with two accounts (the other account's key is answered 404). What the engine then does with a
// stopped container is test/engine/container-stop-e2e.test.ts (the simulator) and
// test/engine/container-stop-diff.test.ts (the diff, pure).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { type SeededShipment, seedShipment } from '../helpers/seed.ts';
import { LOOPBACK_WEBHOOKS } from '../helpers/worker-app.ts';

for (const engine of ENGINES) {
  describe(`container stop and resume [${engine}]`, () => {
    let t: TestApp;
    let other: { accountId: string; key: string };

    before(async () => {
      t = await startTestApp(engine, { ...LOOPBACK_WEBHOOKS, RATE_LIMIT_DEFAULT_PER_MINUTE: '10000' });
      other = await t.newAccount('other');
      // A webhook for every event (nothing listens: the notifications are only counted).
      const hook = await t.request('POST', '/v2/webhooks', {
        body: { data: { attributes: { url: 'http://127.0.0.1:9/hook' } } },
      });
      assert.equal(hook.status, 201, hook.text);
    });
    after(async () => t?.close());

    const db = () => t.database.db;
    const stop = (id: string, key?: string) =>
      t.request('PATCH', `/v2/containers/${id}/stop_tracking`, { key });
    const resume = (id: string, key?: string) =>
      t.request('PATCH', `/v2/containers/${id}/resume_tracking`, { key });
    const shipment = async (s: SeededShipment) =>
      (await t.request('GET', `/v2/shipments/${s.shipmentId}`)).body.data.attributes;
    const events = (containerId: string) =>
      db()
        .selectFrom('domain_events')
        .select(['event', 'changeset', 'source', 'shipment_id', 'reference_type'])
        .where('container_id', '=', containerId)
        .where('event', '=', 'container.updated')
        // The seeded journey's own container.updated events are the line's.
        .where('source', '=', 'user')
        .orderBy('seq')
        .execute();
    const notifications = (event: string, shipmentId: string) =>
      db()
        .selectFrom('webhook_notifications as n')
        .innerJoin('domain_events as d', 'd.id', 'n.domain_event_id')
        .select('d.changeset')
        .where('n.event', '=', event)
        .where('d.shipment_id', '=', shipmentId)
        .execute();

    test('stop: the container alone, announced once, idempotent; the shipment keeps tracking', async () => {
      const s = await seedShipment(db(), t.accountId);
      const [a, b] = s.containerIds as [string, string];
      const res = await stop(a);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.id, a);
      assert.equal(res.body.data.type, 'container');
      const at = res.body.data.attributes;
      assert.equal(at.tracking_stopped_reason, 'user_request');
      assert.ok(Math.abs(Date.parse(at.tracking_stopped_at) - Date.now()) < 60_000);

      // Both read paths (SQL text and the JavaScript serializer) serve the stop.
      const got = await t.request('GET', `/v2/containers/${a}`);
      assert.equal(got.body.data.attributes.tracking_stopped_at, at.tracking_stopped_at);
      assert.equal(got.body.data.attributes.tracking_stopped_reason, 'user_request');
      const js = await t.request('GET', `/v2/containers/${a}?include=shipment`);
      assert.equal(js.body.data.attributes.tracking_stopped_at, at.tracking_stopped_at);
      const sibling = await t.request('GET', `/v2/containers/${b}`);
      assert.equal(sibling.body.data.attributes.tracking_stopped_at, null);
      assert.equal(sibling.body.data.attributes.tracking_stopped_reason, null);

      const sa = await shipment(s);
      assert.equal(sa.line_tracking_stopped_at, null, 'one container is still tracked');

      const recorded = await events(a);
      assert.equal(recorded.length, 1);
      assert.equal(recorded[0]!.reference_type, 'container_updated_event');
      assert.equal(recorded[0]!.source, 'user');
      assert.deepEqual(recorded[0]!.changeset, {
        tracking_stopped_at: [null, at.tracking_stopped_at],
        tracking_stopped_reason: [null, 'user_request'],
      });
      const announced = await notifications('container.updated', s.shipmentId);
      assert.equal(announced.filter((n: any) => 'tracking_stopped_at' in (n.changeset ?? {})).length, 1);

      // Again: same time and reason, nothing new announced.
      const again = await stop(a);
      assert.equal(again.status, 200);
      assert.equal(again.body.data.attributes.tracking_stopped_at, at.tracking_stopped_at);
      assert.equal((await events(a)).length, 1);

      // A stopped container is not refreshed: 422 naming its own resume.
      const refresh = await t.request('PATCH', `/v2/containers/${a}/refresh`);
      assert.equal(refresh.status, 422);
      assert.equal(refresh.body.errors[0].code, 'tracking_stopped');
      assert.match(refresh.body.errors[0].detail, new RegExp(`/v2/containers/${a}/resume_tracking`));
      assert.equal((await t.request('PATCH', `/v2/containers/${b}/refresh`)).status, 200);
    });

    test('another account’s key, unknown and malformed ids are 404 in the JSON:API error form', async () => {
      const s = await seedShipment(db(), t.accountId);
      const [a] = s.containerIds as [string];
      for (const [id, key] of [
        [a, other.key],
        ['00000000-0000-4000-8000-000000000000', undefined],
        ['nope', undefined],
      ] as const) {
        for (const act of [stop, resume]) {
          const r = await act(id, key);
          assert.equal(r.status, 404, `${id} ${r.text}`);
          assert.equal(r.body.errors[0].status, '404');
          assert.equal(r.body.errors[0].title, 'Not Found');
        }
      }
      // The other account's attempts changed nothing.
      const got = await t.request('GET', `/v2/containers/${a}`);
      assert.equal(got.body.data.attributes.tracking_stopped_at, null);
      assert.equal((await events(a)).length, 0);
      // And the other account's own container is its to stop.
      const theirs = await seedShipment(db(), other.accountId);
      const r = await stop(theirs.containerIds[0]!, other.key);
      assert.equal(r.status, 200);
      assert.equal((await stop(theirs.containerIds[0]!)).status, 404);
    });

    test('the last container stopped stops the shipment (all_containers_stopped); resuming one resumes it', async () => {
      const s = await seedShipment(db(), t.accountId);
      const [a, b] = s.containerIds as [string, string];
      assert.equal((await stop(a)).status, 200);
      assert.equal((await stop(b)).status, 200);
      const stopped = await shipment(s);
      assert.equal(stopped.line_tracking_stopped_reason, 'all_containers_stopped');
      assert.ok(stopped.line_tracking_stopped_at);
      const tr = await t.request('GET', `/v2/tracking_requests/${s.trackingRequestId}`);
      assert.equal(tr.body.data.attributes.status, 'tracking_stopped');
      // The shipment's own stop notification.
      const stops = await notifications('tracking_request.tracking_stopped', s.shipmentId);
      assert.equal(stops.length, 1);
      assert.deepEqual(stops[0]!.changeset, {
        status: ['created', 'tracking_stopped'],
        line_tracking_stopped_reason: [null, 'all_containers_stopped'],
      });
      const listed = await t.request('GET', '/v2/shipments?filter[tracking_stopped]=true&page[size]=100');
      assert.ok(listed.body.data.some((x: any) => x.id === s.shipmentId));

      const res = await resume(b);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.attributes.tracking_stopped_at, null);
      assert.equal(res.body.data.attributes.tracking_stopped_reason, null);
      const resumed = await shipment(s);
      assert.equal(resumed.line_tracking_stopped_at, null);
      assert.equal(resumed.line_tracking_stopped_reason, null);
      const tr2 = await t.request('GET', `/v2/tracking_requests/${s.trackingRequestId}`);
      assert.equal(tr2.body.data.attributes.status, 'created');
      const row = await db()
        .selectFrom('shipments')
        .select(['next_refresh_at', 'engine_fingerprint'])
        .where('id', '=', s.shipmentId)
        .executeTakeFirstOrThrow();
      assert.ok(row.next_refresh_at && row.next_refresh_at.getTime() <= Date.now() + 1000, 'due now');
      assert.equal(row.engine_fingerprint, null, 'the next refresh reads the answer in full');
      const [first, cleared] = (await events(b)) as Array<{ changeset: any }>;
      assert.deepEqual(cleared!.changeset, {
        tracking_stopped_at: [first!.changeset.tracking_stopped_at[1], null],
        tracking_stopped_reason: ['user_request', null],
      });
      // The sibling is still stopped.
      const still = await t.request('GET', `/v2/containers/${a}`);
      assert.equal(still.body.data.attributes.tracking_stopped_reason, 'user_request');

      // Resuming a container that is tracked is a no-op: 200, nothing announced.
      const noop = await resume(b);
      assert.equal(noop.status, 200);
      assert.equal((await events(b)).length, 2);
    });

    test('resuming the shipment that all its containers stopped resumes them; another stop reason stays', async () => {
      const s = await seedShipment(db(), t.accountId);
      const [a, b] = s.containerIds as [string, string];
      await stop(a);
      await stop(b);
      const res = await t.request('PATCH', `/v2/shipments/${s.shipmentId}/resume_tracking`);
      assert.equal(res.status, 200);
      assert.equal(res.body.data.attributes.line_tracking_stopped_at, null);
      for (const id of [a, b]) {
        const c = await t.request('GET', `/v2/containers/${id}`);
        assert.equal(c.body.data.attributes.tracking_stopped_at, null, id);
        assert.equal((await events(id)).length, 2, 'stopped, then resumed with the shipment');
      }

      // The user's stop of the shipment is not undone by resuming one of its containers.
      const u = await seedShipment(db(), t.accountId);
      const [c1] = u.containerIds as [string];
      await stop(c1);
      assert.equal((await t.request('PATCH', `/v2/shipments/${u.shipmentId}/stop_tracking`)).status, 200);
      assert.equal((await resume(c1)).status, 200);
      const after = await shipment(u);
      assert.equal(after.line_tracking_stopped_reason, 'cancelled_by_user');
    });

    test('the change history keeps the stop and the resume, source user', async () => {
      const s = await seedShipment(db(), t.accountId);
      const [a] = s.containerIds as [string];
      const stopped = (await stop(a)).body.data.attributes.tracking_stopped_at;
      await resume(a);
      const res = await t.request(
        'GET',
        `/v2/containers/${a}/changes?filter[attribute]=tracking_stopped_at,tracking_stopped_reason`,
      );
      assert.equal(res.status, 200, res.text);
      const rows = res.body.data.map((c: any) => [
        c.attributes.attribute,
        c.attributes.before,
        c.attributes.after,
        c.attributes.source,
      ]);
      assert.deepEqual(rows, [
        ['tracking_stopped_at', stopped, null, 'user'],
        ['tracking_stopped_reason', 'user_request', null, 'user'],
        ['tracking_stopped_at', null, stopped, 'user'],
        ['tracking_stopped_reason', null, 'user_request', 'user'],
      ]);
      const theirs = await t.request('GET', `/v2/containers/${a}/changes`, { key: other.key });
      assert.equal(theirs.status, 404);
    });

    test('a stop waits for a refresh under way (it holds the shipment row) and is not overwritten by it', {
      skip: engine === 'pglite' ? 'one connection: nothing runs beside a transaction' : false,
    }, async () => {
      const s = await seedShipment(db(), t.accountId);
      const [a] = s.containerIds as [string];
      let settled = false;
      let pending: Promise<unknown> | undefined;
      await db()
        .transaction()
        .execute(async (tx) => {
          // What refresh.ts holds from its lease check to its commit.
          await tx.selectFrom('shipments').select('id').where('id', '=', s.shipmentId).forUpdate().execute();
          pending = stop(a).then((r) => {
            settled = true;
            return r;
          });
          await new Promise((r) => setTimeout(r, 400));
          assert.equal(settled, false, 'the stop waits for the refresh');
          await tx.updateTable('containers').set({ seal_number: 'SEAL-1' }).where('id', '=', a).execute();
        });
      const res = (await pending) as Awaited<ReturnType<typeof stop>>;
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.attributes.seal_number, 'SEAL-1', "the refresh's write came first");
      assert.equal(res.body.data.attributes.tracking_stopped_reason, 'user_request');
    });

    test('the OpenAPI document describes both paths', async () => {
      const doc = (await t.request('GET', '/v2/openapi.json')).body;
      for (const path of ['/v2/containers/{id}/stop_tracking', '/v2/containers/{id}/resume_tracking']) {
        const op = doc.paths[path]?.patch;
        assert.ok(op, path);
        assert.ok(op.responses['200'] && op.responses['404'], path);
      }
      const attrs = doc.components?.schemas
        ? JSON.stringify(doc.paths['/v2/containers/{id}'].get.responses['200'])
        : '';
      assert.match(attrs, /tracking_stopped_reason/);
    });
  });
}
