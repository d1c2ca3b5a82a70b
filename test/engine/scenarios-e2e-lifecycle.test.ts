// Issue 12, "done means": the scenario families about a tracking request's life rather than the
// route (several containers, manifest delay, not found, cancelled, flaky carrier, booking first),
// end to end: the simulator process behind one DCSA CARRIERS_CONFIG entry, the real engine and
// API, a real webhook receiver, and the simulated clock advanced to several points (days after the
// simulator's epoch). test/engine/simulator-e2e.test.ts covers the same families' tracking request
// statuses through the stored domain events; this file follows the records and the deliveries.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../helpers/engine.ts';
import { RIGS, short, useScenarioRig } from '../helpers/scenario-rig.ts';

const T = 'container.transport.';

for (const [engine, adapter] of RIGS) {
  describe(`tracking life cycle scenarios end to end through the simulator process [${engine}, ${adapter}]`, () => {
    const rig = useScenarioRig(engine, { adapter });

    test('three containers (SIMBL3C): each created, each moved by the shared transport events', async () => {
      const s = await rig.track('SIMBL3C0001', 'bill_of_lading');
      await s.until(['created']);
      let cs = await s.containers();
      assert.equal(cs.length, 3);
      assert.equal((await s.shipment()).data.attributes.bill_of_lading_number, 'SIMBL3C0001');
      assert.deepEqual(await s.deliveredAll(['tracking_request.succeeded']), ['tracking_request.succeeded']);

      await rig.advanceTo(10);
      await s.refresh();
      cs = await s.containers();
      for (const c of cs) assert.equal(c.attributes.current_status, 'on_ship', c.attributes.number);
      await eventually(async () => s.bodies(`${T}vessel_departed`).length === 3, 15_000, 'three departures');
      const boxes = s
        .bodies(`${T}vessel_departed`)
        .map((b) => b.included.find((r: any) => r.type === 'container').attributes.number)
        .sort();
      assert.deepEqual(boxes, cs.map((c: any) => c.attributes.number).sort(), 'one notification per box');

      await rig.advanceTo(34);
      await s.refresh();
      assert.ok((await s.shipment()).data.attributes.pod_ata_at);
      for (const c of await s.containers()) assert.equal(c.attributes.current_status, 'grounded');
      await eventually(async () => s.bodies(`${T}vessel_arrived`).length === 3, 15_000, 'three arrivals');
    });

    test('manifest delay (SIMLATE): awaiting_manifest, then the back-filled journey without replaying it', async () => {
      const s = await rig.track('SIMLATE0001', 'bill_of_lading');
      const waiting = await s.until(['awaiting_manifest']);
      assert.equal(waiting.data.relationships.tracked_object.data, null);
      await s.deliveredAll(['tracking_request.awaiting_manifest']);

      await rig.advanceTo(4);
      await s.until(['created']);
      let a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'DEHAM');
      assert.ok(a.pol_atd_at, 'the back-filled departure');
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      assert.ok(short(await s.events(c.id)).includes('vessel_departed'));
      const got = await s.deliveredAll(['tracking_request.succeeded']);
      assert.deepEqual(got, ['tracking_request.awaiting_manifest', 'tracking_request.succeeded']);

      await rig.advanceTo(34);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.ok(a.pod_ata_at);
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      const later = await s.deliveredAll([`${T}vessel_arrived`, `${T}vessel_discharged`]);
      assert.ok(!later.includes(`${T}vessel_departed`), 'what was there at creation is not announced');
    });

    test('not found (SIMNONE): a B/L waits for the manifest then fails, a container fails at once', async () => {
      const bl = await rig.track('SIMNONE0001', 'bill_of_lading');
      await bl.until(['awaiting_manifest']);
      const failed = await bl.until(['failed'], 10_000);
      assert.equal(failed.data.attributes.failed_reason, 'not_found');
      assert.deepEqual(await bl.deliveredAll(['tracking_request.failed']), [
        'tracking_request.awaiting_manifest',
        'tracking_request.failed',
      ]);
      const box = await rig.track('SIMU0000002', 'container');
      const boxFailed = await box.until(['failed']);
      assert.equal(boxFailed.data.attributes.failed_reason, 'not_found');
      assert.equal(boxFailed.data.relationships.tracked_object.data, null);
      assert.deepEqual(await box.deliveredAll(['tracking_request.failed']), ['tracking_request.failed']);
      const body = box.bodies('tracking_request.failed')[0];
      assert.ok(body.included.some((r: any) => r.type === 'tracking_request'));
    });

    test('cancelled booking (SIMCANC): the request fails with booking_cancelled, no shipment', async () => {
      const s = await rig.track('BKGCANC0001', 'booking_number');
      const failed = await s.until(['failed']);
      assert.equal(failed.data.attributes.failed_reason, 'booking_cancelled');
      assert.equal(failed.data.relationships.tracked_object.data, null);
      assert.deepEqual(await s.deliveredAll(['tracking_request.failed']), ['tracking_request.failed']);
      const bl = await rig.track('SIMCANC0001', 'bill_of_lading');
      assert.equal((await bl.until(['failed'])).data.attributes.failed_reason, 'booking_cancelled');
    });

    test('flaky carrier (SIMFLAKY): retries are not announced; the journey is read once the carrier answers', async () => {
      const s = await rig.track('SIMU9000003', 'container');
      const retrying = await eventually(async () => {
        const b = await s.request();
        return b.data.attributes.is_retrying && b;
      });
      assert.ok(retrying.data.attributes.retry_count >= 1);
      const done = await s.until(['created'], 20_000);
      assert.equal(done.data.attributes.failed_reason, null);
      assert.deepEqual(await s.deliveredAll(['tracking_request.succeeded']), ['tracking_request.succeeded']);
      assert.equal((await s.shipment()).data.attributes.port_of_discharge_locode, 'DEHAM');

      // The two answers after the creation's are good ones.
      await rig.advanceTo(10);
      await s.refresh();
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      // Then the failure cycle again: the engine retries on its own until it reads the arrival.
      await rig.advanceTo(34);
      await s.refresh();
      await eventually(
        async () => {
          [c] = await s.containers();
          return c.attributes.current_status === 'grounded';
        },
        20_000,
        'the arrival read through the failures',
      );
      assert.ok((await s.shipment()).data.attributes.pod_ata_at);
      const got = await s.deliveredAll([`${T}vessel_departed`, `${T}vessel_arrived`], 20_000);
      assert.ok(!got.includes('tracking_request.failed'));
      assert.equal(got.filter((n) => n === 'tracking_request.succeeded').length, 1);
    });

    test('booking first (SIMBKG): a shipment without containers, then two boxes, the plan and the B/L', async () => {
      const s = await rig.track('SIMBKG0001', 'booking_number');
      await s.until(['created']);
      let doc = await s.shipment();
      assert.equal(doc.data.relationships.containers.data.length, 0);
      assert.equal(
        doc.data.attributes.bill_of_lading_number,
        'SIMBKG0001',
        'the booking until a B/L is known',
      );
      assert.equal(doc.data.attributes.port_of_discharge_locode, null);

      await rig.advanceTo(3);
      await s.refresh();
      doc = await s.shipment();
      const a = doc.data.attributes;
      assert.equal(doc.data.relationships.containers.data.length, 2);
      assert.equal(a.bill_of_lading_number, 'BOLBKG0001', "the carrier's B/L");
      assert.equal(a.normalized_number, 'SIMBKG0001');
      assert.equal(a.port_of_lading_locode, 'CNSGH');
      assert.equal(a.port_of_discharge_locode, 'NLRTM');
      assert.deepEqual(a.transshipment_locodes, [], 'SGSIN is an on-board call');
      assert.ok(a.pod_eta_at);
      await eventually(
        async () => s.bodies('container.created').length === 2,
        15_000,
        'two container.created',
      );

      await rig.advanceTo(7);
      await s.refresh();
      for (const c of await s.containers()) assert.equal(c.attributes.current_status, 'on_ship');
      await eventually(async () => s.bodies(`${T}vessel_loaded`).length === 2, 15_000, 'two loads');

      await rig.advanceTo(38);
      await s.refresh();
      assert.ok((await s.shipment()).data.attributes.pod_ata_at);
      for (const c of await s.containers()) assert.equal(c.attributes.current_status, 'grounded');
      const got = await s.deliveredAll([`${T}vessel_arrived`]);
      assert.ok(got.indexOf('container.created') < got.indexOf(`${T}vessel_loaded`));
    });
  });
}
