// Issue 32, item 2, end to end: a user stops one container of a three-container bill of lading
// (the simulator's SIMBL3C) over HTTP; the carrier keeps reporting all three, and the simulated
// clock moves on. The stopped box gets no further updates and no notifications, its siblings keep
// updating; stopping the other two stops the shipment (all_containers_stopped, its own
// notification); resuming the first resumes the shipment, and the box catches up on what it
// missed. The simulator process, the real engine and API and a real webhook receiver, on each
// database engine.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { short, useScenarioRig } from '../helpers/scenario-rig.ts';

const T = 'container.transport.';

for (const engine of ENGINES) {
  describe(`per-container stop and resume through the simulator [${engine}]`, () => {
    const rig = useScenarioRig(engine);

    test('a stopped container gets no further updates while its siblings keep updating', async () => {
      const s = await rig.track('SIMBL3C0001', 'bill_of_lading');
      await s.until(['created']);
      await s.deliveredAll(['tracking_request.succeeded']);
      const patch = (path: string, key = s.key) => rig.t.request('PATCH', path, { key });
      const byNumber = async () =>
        new Map((await s.containers()).map((c: any) => [c.attributes.number as string, c]));
      const numberOf = (body: any) =>
        body.included.find((r: any) => r.type === 'container')?.attributes.number;
      const [stopped, ...siblings] = [...(await byNumber()).keys()].sort() as [string, string, string];
      const box = (await byNumber()).get(stopped);
      const before = { ...box.attributes };
      const eventsBefore = short(await s.events(box.id));

      // Another account cannot stop it.
      const stranger = await rig.t.newAccount('stranger');
      assert.equal((await patch(`/v2/containers/${box.id}/stop_tracking`, stranger.key)).status, 404);

      const res = await patch(`/v2/containers/${box.id}/stop_tracking`);
      assert.equal(res.status, 200, res.text);
      const stoppedAt = res.body.data.attributes.tracking_stopped_at;
      assert.equal(res.body.data.attributes.tracking_stopped_reason, 'user_request');
      await s.deliveredAll(['container.updated']);
      const stopNote = s.bodies('container.updated').find((b) => numberOf(b) === stopped);
      assert.ok(stopNote, 'container.updated names the stopped box');
      const changeset = stopNote.included.find((r: any) => r.type === 'container_updated_event').attributes
        .changeset;
      assert.deepEqual(changeset, {
        tracking_stopped_at: [null, stoppedAt],
        tracking_stopped_reason: [null, 'user_request'],
      });

      // The line reports departure, then arrival and discharge, for all three boxes.
      await rig.advanceTo(10);
      await s.refresh();
      await rig.advanceTo(34);
      await s.refresh();
      const now = await byNumber();
      for (const n of siblings) assert.equal(now.get(n).attributes.current_status, 'grounded', n);
      assert.ok((await s.shipment()).data.attributes.pod_ata_at, 'the shipment arrived');
      const still = now.get(stopped).attributes;
      // Every fact as it was; only the shipment's bookkeeping (when the line was last asked,
      // which the container's *_last_tracking_request_at serve) moves on with its siblings.
      const facts = (a: any) => {
        const { pod_last_tracking_request_at, shipment_last_tracking_request_at, ...rest } = a;
        return rest;
      };
      assert.deepEqual(
        facts(still),
        {
          ...facts(before),
          tracking_stopped_at: stoppedAt,
          tracking_stopped_reason: 'user_request',
          updated_at: stoppedAt,
        },
        'the stopped box is as it was when stopped',
      );
      assert.equal(Date.parse(still.updated_at), Date.parse(stoppedAt), 'not written since its stop');
      assert.deepEqual(short(await s.events(box.id)), eventsBefore, 'no new transport events');
      // Each of the three notifications goes out on its own delivery: wait for all of them, not
      // only the arrivals, before comparing (CI once compared while a discharge was in flight).
      const legs = [`${T}vessel_departed`, `${T}vessel_arrived`, `${T}vessel_discharged`];
      await eventually(
        async () => legs.every((name) => s.bodies(name).length >= siblings.length),
        15_000,
        'the siblings announced',
      );
      for (const name of legs) {
        assert.deepEqual(s.bodies(name).map(numberOf).sort(), siblings, `${name}: the siblings only`);
      }
      // Nothing but its stop was announced for the stopped box.
      const aboutIt = rig.t.database.db
        .selectFrom('domain_events')
        .select(['event', 'source'])
        .where('container_id', '=', box.id)
        .where('created_at', '>=', new Date(stoppedAt))
        .execute();
      assert.deepEqual(await aboutIt, [{ event: 'container.updated', source: 'user' }]);

      // Stopping the other two stops the shipment, with its own notification.
      for (const n of siblings)
        assert.equal((await patch(`/v2/containers/${now.get(n).id}/stop_tracking`)).status, 200);
      let shipment = (await s.shipment()).data.attributes;
      assert.equal(shipment.line_tracking_stopped_reason, 'all_containers_stopped');
      await s.deliveredAll(['tracking_request.tracking_stopped']);
      assert.equal((await s.request()).data.attributes.status, 'tracking_stopped');

      // Resuming the first box resumes the shipment; the next refresh catches the box up.
      const resumed = await patch(`/v2/containers/${box.id}/resume_tracking`);
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.body.data.attributes.tracking_stopped_at, null);
      shipment = (await s.shipment()).data.attributes;
      assert.equal(shipment.line_tracking_stopped_at, null);
      await s.refresh();
      const caught = (await byNumber()).get(stopped).attributes;
      assert.equal(caught.current_status, 'grounded');
      assert.ok(caught.pod_discharged_at);
      assert.ok(short(await s.events(box.id)).includes('vessel_discharged'));
      await eventually(
        async () => s.bodies(`${T}vessel_discharged`).some((b) => numberOf(b) === stopped),
        15_000,
        'the resumed box announced',
      );
      // Its siblings are still stopped: nothing new for them.
      for (const n of siblings) {
        const c = (await byNumber()).get(n).attributes;
        assert.equal(c.tracking_stopped_reason, 'user_request', n);
      }
    });

    test('tracking the number again after its only container was stopped tracks the container again', async () => {
      const s = await rig.track('SIMBL1C0001', 'bill_of_lading');
      await s.until(['created']);
      const [box] = await s.containers();
      const stop = await rig.t.request('PATCH', `/v2/containers/${box.id}/stop_tracking`, { key: s.key });
      assert.equal(stop.status, 200, stop.text);
      assert.equal(
        (await s.shipment()).data.attributes.line_tracking_stopped_reason,
        'all_containers_stopped',
      );
      await s.until(['tracking_stopped']);

      await rig.advanceTo(10);
      const again = await rig.t.request('POST', '/v2/tracking_requests', {
        key: s.key,
        body: trBody({ request_type: 'bill_of_lading', request_number: 'SIMBL1C0001', scac: 'MAEU' }),
      });
      assert.equal(again.status, 201, again.text);
      const tr = await eventually(
        async () => {
          const r = await rig.t.request('GET', `/v2/tracking_requests/${again.body.data.id}`, { key: s.key });
          return r.body.data.attributes.status === 'created' && r.body;
        },
        15_000,
        'the second request to succeed',
      );
      assert.equal(tr.data.relationships.tracked_object.data.id, await s.shipmentId(), 'the same shipment');
      const c = await eventually(
        async () => {
          const r = await rig.t.request('GET', `/v2/containers/${box.id}`, { key: s.key });
          return r.body.data.attributes.current_status === 'on_ship' && r.body.data.attributes;
        },
        15_000,
        'the container read again',
      );
      assert.equal(c.tracking_stopped_at, null);
      assert.equal((await s.shipment()).data.attributes.line_tracking_stopped_at, null);
    });
  });
}
