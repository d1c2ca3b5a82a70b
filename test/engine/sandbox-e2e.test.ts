import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Engine } from '../../src/engine/start.ts';
import { type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { startWorkerApp, type WorkerApp } from '../helpers/worker-app.ts';

for (const engine of ENGINES) {
  describe(`sandbox SCAC TEST with no configuration [${engine}]`, () => {
    let app: WorkerApp;
    let t: TestApp;
    let worker: Engine;
    before(async () => {
      app = await startWorkerApp(engine);
      ({ t, worker } = app);
    });
    after(() => app.close());

    const track = async (number: string, request_type = 'bill_of_lading', key = t.key) => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: trBody({ request_type, request_number: number, scac: 'TEST' }),
      });
      assert.equal(res.status, 201, res.text);
      return res.body.data.id as string;
    };

    test('TEST-TR-SUCCEEDED creates a shipment with containers and transport events', async () => {
      const id = await track('TEST-TR-SUCCEEDED');
      worker.wake();
      const tr = await eventually(async () => {
        const r = await t.request('GET', `/v2/tracking_requests/${id}`);
        return r.body.data.attributes.status !== 'pending' && r.body;
      });
      assert.ok(
        ['created', 'tracking_stopped'].includes(tr.data.attributes.status),
        tr.data.attributes.status,
      );
      const shipmentRef = tr.data.relationships.tracked_object.data;
      assert.equal(shipmentRef.type, 'shipment');
      const shipment = tr.included.find((r: any) => r.id === shipmentRef.id);
      assert.ok(shipment, 'tracked_object is included by default');
      assert.equal(shipment.attributes.bill_of_lading_number, 'TEST-TR-SUCCEEDED');
      assert.ok(shipment.attributes.port_of_lading_locode);
      assert.ok(shipment.attributes.port_of_discharge_locode);
      const containers = shipment.relationships.containers.data;
      assert.ok(containers.length >= 1);
      const events = await t.request('GET', `/v2/containers/${containers[0].id}/transport_events`);
      assert.equal(events.status, 200);
      assert.ok(events.body.data.length >= 4);
      assert.ok(
        events.body.data.some((e: any) => e.attributes.event === 'container.transport.vessel_loaded'),
      );
      const succeeded = await t.database.db
        .selectFrom('domain_events')
        .selectAll()
        .where('tracking_request_id', '=', id)
        .where('event', '=', 'tracking_request.succeeded')
        .execute();
      assert.equal(succeeded.length, 1);
    });

    test('the test numbers are taken as every request type, containers too (issue 28)', async () => {
      // An account per type: a tracked number is a duplicate whatever its type.
      for (const type of ['booking_number', 'container']) {
        const { key } = await t.newAccount(type);
        const ok = await track('TEST-TR-SUCCEEDED', type, key);
        const failing = await track('test-tr-failed', type, key);
        worker.wake();
        const statusOf = async (id: string) =>
          (await t.request('GET', `/v2/tracking_requests/${id}`, { key })).body.data.attributes.status;
        await eventually(async () => (await statusOf(failing)) === 'failed');
        const status = await eventually(async () => {
          const s = await statusOf(ok);
          return s !== 'pending' && s;
        });
        assert.ok(['created', 'tracking_stopped'].includes(status), `${type}: ${status}`);
      }
    });

    test('TEST-TR-FAILED fails', async () => {
      const id = await track('TEST-TR-FAILED');
      worker.wake();
      const tr = await eventually(async () => {
        const r = await t.request('GET', `/v2/tracking_requests/${id}`);
        return r.body.data.attributes.status === 'failed' && r.body;
      });
      assert.equal(tr.data.attributes.failed_reason, 'not_found');
      assert.deepEqual(tr.data.relationships.tracked_object, { data: null });
      const failed = await t.database.db
        .selectFrom('domain_events')
        .select('event')
        .where('tracking_request_id', '=', id)
        .execute();
      assert.deepEqual(
        failed.map((e) => e.event),
        ['tracking_request.failed'],
      );
    });
  });
}
