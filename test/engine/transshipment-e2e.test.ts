// The transshipment scenario (SIMTS) followed through the real engine and storage, day by day of
// simulated time, on both engines: the stored milestones at several points of the journey; and a
// first reading made without the carrier's plan (the transshipment port then looks like the POD)
// corrected once the plan is published: the wrong events invalidated, the right ones recorded
// and announced, the milestones recomputed.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSandboxAdapter } from '../../src/carriers/sandbox.ts';
import type { CarrierAdapter } from '../../src/carriers/types.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

// Near the real clock: the engine's own clock decides the stop windows after arrival.
const EPOCH = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 5 * 86_400_000);
const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`transshipment journey through the engine [${engine}]`, () => {
    let t: TestApp;
    let worker: Engine;
    let day = 0;
    // Numbers whose carrier answers leave out the plan (PLN/EST): a line that publishes it late.
    const withoutPlan = new Set<string>();
    before(async () => {
      // Refreshes only when a test asks (a long interval), so each reading is at a known day.
      t = await startTestApp(engine, {
        ...FAST_ENGINE_ENV,
        REFRESH_INTERVAL_MS: '3600000',
        REFRESH_NEAR_ARRIVAL_MS: '3600000',
      });
      const sandbox = createSandboxAdapter({
        clock: () => new Date(EPOCH.getTime() + day * DAY),
        epoch: EPOCH,
      });
      const line: CarrierAdapter = {
        scac: 'TEST',
        numberTypes: sandbox.numberTypes,
        async lookup(type, number, signal) {
          const r = await sandbox.lookup(type, number, signal);
          if (r.kind !== 'found' || !withoutPlan.has(number)) return r;
          const records = r.snapshot.records.filter((x) => x.label.classifier === 'ACT');
          return { kind: 'found', snapshot: { records } };
        },
      };
      worker = startTestEngine(t.database, t.config, new Map([['TEST', line]]));
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
    });

    async function track(number: string, type = 'bill_of_lading'): Promise<string> {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: type, request_number: number, scac: 'TEST' }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      const tr = await eventually(async () => {
        const r = await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`);
        return r.body.data.attributes.status !== 'pending' && r.body;
      });
      assert.equal(tr.data.attributes.status, 'created', JSON.stringify(tr.data.attributes));
      return tr.data.relationships.tracked_object.data.id as string;
    }

    const shipmentRow = (id: string) =>
      t.database.db.selectFrom('shipments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const containerRow = (shipmentId: string) =>
      t.database.db
        .selectFrom('containers')
        .selectAll()
        .where('shipment_id', '=', shipmentId)
        .executeTakeFirstOrThrow();
    const events = (shipmentId: string) =>
      t.database.db
        .selectFrom('transport_events')
        .select(['event', 'location_locode', 'invalidated_at'])
        .where('shipment_id', '=', shipmentId)
        .execute();
    const announced = async (shipmentId: string) =>
      (
        await t.database.db
          .selectFrom('domain_events')
          .select('event')
          .where('shipment_id', '=', shipmentId)
          .orderBy('seq')
          .execute()
      ).map((e) => e.event);

    /** Moves the carrier's clock and waits until a refresh has read the answer of that day. */
    async function refreshAt(d: number, shipmentId: string): Promise<void> {
      day = d;
      const before = (await shipmentRow(shipmentId)).line_tracking_last_attempted_at;
      await t.database.db
        .updateTable('shipments')
        .set({ next_refresh_at: new Date(Date.now() - 1000) })
        .where('id', '=', shipmentId)
        .execute();
      worker.wake();
      await eventually(async () => {
        const s = await shipmentRow(shipmentId);
        return (
          s.line_tracking_last_attempted_at?.getTime() !== before?.getTime() &&
          s.next_refresh_at &&
          s.next_refresh_at > new Date()
        );
      });
    }

    test('milestones at several points: at the transshipment port the box is on_ship and the POD is still ahead', async () => {
      day = 5;
      const id = await track('SIMTS0002');
      let s = await shipmentRow(id);
      assert.equal(s.port_of_lading_locode, 'CNSGH');
      assert.equal(s.port_of_discharge_locode, 'NLRTM');
      assert.deepEqual(s.transshipment_locodes, ['SGSIN']);
      assert.ok(s.pod_eta_at);
      assert.ok(s.pol_atd_at, 'departed the POL');
      assert.equal((await containerRow(id)).current_status, 'on_ship');
      const podTerminal = s.pod_terminal_id;
      assert.ok(podTerminal, 'the POD terminal is known from the plan');

      await refreshAt(12, id);
      s = await shipmentRow(id);
      let c = await containerRow(id);
      assert.equal(s.port_of_discharge_locode, 'NLRTM');
      assert.equal(s.pod_ata_at, null);
      assert.equal(c.current_status, 'on_ship');
      assert.equal(c.pod_arrived_at, null);
      assert.equal(c.pod_discharged_at, null);
      assert.equal(s.pod_terminal_id, podTerminal, 'the POD terminal is not blanked by a departure');
      let evs = await events(id);
      assert.ok(
        evs.some((e) => e.event.endsWith('transshipment_discharged') && e.location_locode === 'SGSIN'),
      );
      assert.ok(!evs.some((e) => e.event.endsWith('.vessel_arrived')));
      assert.ok((await announced(id)).includes('container.transport.transshipment_arrived'));

      await refreshAt(20, id);
      s = await shipmentRow(id);
      evs = await events(id);
      assert.ok(evs.some((e) => e.event.endsWith('transshipment_departed')));
      assert.equal(s.pod_ata_at, null);
      assert.equal(s.pod_terminal_id, podTerminal);

      await refreshAt(39, id);
      s = await shipmentRow(id);
      c = await containerRow(id);
      assert.ok(s.pod_ata_at, 'arrived at the POD');
      assert.ok(c.pod_arrived_at);
      assert.ok(['grounded', 'picked_up', 'available'].includes(c.current_status), c.current_status);
      evs = await events(id);
      assert.deepEqual(
        evs.filter((e) => e.event.endsWith('.vessel_arrived')).map((e) => e.location_locode),
        ['NLRTM'],
      );
      assert.ok(
        evs.every((e) => e.invalidated_at === null),
        'nothing was read wrongly',
      );
    });

    test('a reading made without the plan is corrected: wrong events invalidated, milestones recomputed', async () => {
      withoutPlan.add('SIMTS0003');
      day = 11;
      const id = await track('SIMTS0003');
      let s = await shipmentRow(id);
      // Without the plan, the transshipment port looks like the end of the voyage.
      assert.equal(s.port_of_discharge_locode, 'SGSIN');
      assert.ok(s.pod_ata_at);
      assert.equal((await containerRow(id)).current_status, 'grounded');

      withoutPlan.delete('SIMTS0003');
      await refreshAt(11, id);
      s = await shipmentRow(id);
      const c = await containerRow(id);
      assert.equal(s.port_of_discharge_locode, 'NLRTM');
      assert.deepEqual(s.transshipment_locodes, ['SGSIN']);
      assert.equal(s.pod_ata_at, null, 'the arrival at the transshipment port no longer counts');
      assert.equal(c.pod_arrived_at, null);
      assert.equal(c.pod_discharged_at, null);
      assert.equal(c.current_status, 'on_ship');
      const evs = await events(id);
      const wrong = evs.filter(
        (e) => e.event.endsWith('.vessel_arrived') || e.event.endsWith('.vessel_discharged'),
      );
      assert.equal(wrong.length, 2);
      for (const e of wrong) assert.ok(e.invalidated_at, `${e.event} invalidated`);
      const right = evs.filter((e) => e.event.includes('transshipment_'));
      assert.ok(right.length >= 2);
      for (const e of right) assert.equal(e.invalidated_at, null);
      const names = await announced(id);
      assert.ok(names.includes('container.transport.transshipment_arrived'), names.join(', '));
      assert.ok(names.includes('container.updated'));
      // The API shows the invalidated reading with its invalidated_at.
      const list = await t.request('GET', `/v2/containers/${c.id}/transport_events`);
      assert.equal(list.status, 200);
      const arrived = list.body.data.find(
        (e: any) => e.attributes.event === 'container.transport.vessel_arrived',
      );
      assert.ok(arrived.attributes.invalidated_at);
    });

    test("container and booking requests carry the carrier's B/L; the numbers asked with stay", async () => {
      day = 3;
      for (const [type, number, bl] of [
        ['container', 'SIMU2000001', 'SIMTSU200000'],
        ['booking_number', 'BKGTS0004', 'SIMTS0004'],
      ] as const) {
        const id = await track(number, type);
        const s = await shipmentRow(id);
        assert.equal(s.bill_of_lading_number, bl, type);
        assert.equal(s.normalized_number, number);
        const api = await t.request('GET', `/v2/shipments/${id}`);
        assert.equal(api.body.data.attributes.bill_of_lading_number, bl);
        assert.equal(api.body.data.attributes.normalized_number, number);
        const tr = await t.database.db
          .selectFrom('tracking_requests')
          .select('request_number')
          .where('shipment_id', '=', id)
          .executeTakeFirstOrThrow();
        assert.equal(tr.request_number, number);
      }
    });

    test('carrier haulage (SIMHAUL): the drop at the consignee is delivered, with delivered_at', async () => {
      day = 30;
      const id = await track('SIMHAUL0001');
      assert.equal((await containerRow(id)).delivered_at, null);
      await refreshAt(36.5, id);
      const c = await containerRow(id);
      assert.ok(c.delivered_at, 'delivered_at is set');
      assert.equal(c.current_status, 'delivered');
      assert.ok(c.pod_full_out_at && c.pod_full_out_at < c.delivered_at);
      const names = await announced(id);
      assert.ok(names.includes('container.transport.delivered'), names.join(', '));
      assert.ok(
        names.indexOf('container.transport.full_out') < names.indexOf('container.transport.delivered'),
      );
    });

    test('POD terminal reassigned (SIMTERM): the new terminal replaces the old, announced once', async () => {
      day = 20;
      const id = await track('SIMTERM0001');
      const before = await shipmentRow(id);
      assert.ok(before.pod_terminal_id, 'CTA from the plan');
      assert.equal((await containerRow(id)).pod_terminal_id, before.pod_terminal_id);
      await refreshAt(28, id);
      const after = await shipmentRow(id);
      assert.ok(after.pod_terminal_id);
      assert.notEqual(after.pod_terminal_id, before.pod_terminal_id);
      assert.equal((await containerRow(id)).pod_terminal_id, after.pod_terminal_id);
      const changes = await t.database.db
        .selectFrom('domain_events')
        .select(['event', 'reference_type', 'changeset'])
        .where('shipment_id', '=', id)
        .where('event', '=', 'container.pod_terminal_changed')
        .execute();
      assert.equal(changes.length, 1);
      assert.equal(changes[0]!.reference_type, 'container_pod_terminal_changed_event');
      assert.deepEqual(changes[0]!.changeset, {
        pod_terminal_id: [before.pod_terminal_id, after.pod_terminal_id],
      });
      // Arrival at the new terminal changes nothing more about it.
      await refreshAt(35, id);
      assert.equal((await shipmentRow(id)).pod_terminal_id, after.pod_terminal_id);
      assert.equal((await announced(id)).filter((e) => e === 'container.pod_terminal_changed').length, 1);
    });
  });
}
