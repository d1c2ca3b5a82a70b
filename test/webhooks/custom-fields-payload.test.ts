import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordDomainEvents } from '../../src/domain-events/record.ts';
import type { Engine } from '../../src/engine/start.ts';
import type { TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { seedShipment } from '../helpers/seed.ts';
import { LOOPBACK_WEBHOOKS, startWorkerApp, type WorkerApp } from '../helpers/worker-app.ts';

// Issue 13 (1): a webhook payload includes the custom fields of its shipment, containers and
// tracking request, as custom_field resources in `included`.

for (const engine of ENGINES) {
  describe(`custom fields in webhook payloads [${engine}]`, () => {
    let app: WorkerApp;
    let t: TestApp;
    let worker: Engine;
    let rx: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      app = await startWorkerApp(engine, { ...LOOPBACK_WEBHOOKS, WEBHOOK_TIMEOUT_MS: '10000' });
      ({ t, worker } = app);
      rx = await startReceiver();
    });
    after(async () => {
      await rx.close();
      await app.close();
    });

    test('tracking_request.succeeded carries the shipment custom fields', async () => {
      const { key } = await t.newAccount('cf-hooks');
      for (const [entity_type, api_slug] of [
        ['Shipment', 'booking_ref'],
        ['TrackingRequest', 'desk'],
      ]) {
        const d = await t.request('POST', '/v2/custom_field_definitions', {
          key,
          body: {
            data: { attributes: { entity_type, api_slug, display_name: api_slug, data_type: 'short_text' } },
          },
        });
        assert.equal(d.status, 201, d.text);
      }
      const hook = await t.request('POST', '/v2/webhooks', {
        key,
        body: { data: { attributes: { url: rx.url('/cf'), events: ['tracking_request.succeeded'] } } },
      });
      assert.equal(hook.status, 201, hook.text);
      const tr = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: {
          data: {
            attributes: {
              request_type: 'bill_of_lading',
              request_number: 'TEST-TR-SUCCEEDED',
              scac: 'TEST',
              initial_custom_fields: { shipment: [{ api_slug: 'booking_ref', value: 'BOOK-7' }] },
            },
          },
        },
      });
      assert.equal(tr.status, 201, tr.text);
      const set = await t.request('POST', `/v2/tracking_requests/${tr.body.data.id}/custom_fields`, {
        key,
        body: { data: { attributes: { api_slug: 'desk', value: 'Antwerp' } } },
      });
      assert.equal(set.status, 201, set.text);
      worker.wake();
      const [got] = await eventually(async () => rx.at('/cf').length > 0 && rx.at('/cf'), 20_000);
      const fields = got!.json.included.filter((r: any) => r.type === 'custom_field');
      const bySlug = Object.fromEntries(fields.map((f: any) => [f.attributes.api_slug, f]));
      assert.equal(bySlug.booking_ref?.attributes.value, 'BOOK-7');
      assert.equal(bySlug.booking_ref.relationships.entity.data.type, 'shipment');
      // The request's own field is included when it was set before the payload was rendered
      // (the worker may have run between the two calls above).
      if (bySlug.desk) assert.equal(bySlug.desk.relationships.entity.data.id, tr.body.data.id);
    });

    test("a container event carries the container's custom fields", async () => {
      const { key, accountId } = await t.newAccount('cf-box-hooks');
      const d = await t.request('POST', '/v2/custom_field_definitions', {
        key,
        body: {
          data: {
            attributes: {
              entity_type: 'Container',
              api_slug: 'seal',
              display_name: 'Seal',
              data_type: 'number',
            },
          },
        },
      });
      assert.equal(d.status, 201, d.text);
      const hook = await t.request('POST', '/v2/webhooks', {
        key,
        body: {
          data: { attributes: { url: rx.url('/box'), events: ['container.transport.vessel_loaded'] } },
        },
      });
      assert.equal(hook.status, 201, hook.text);
      const s = await seedShipment(t.database.db, accountId);
      const [boxId, other] = s.containerIds as [string, string];
      for (const [id, value] of [
        [boxId, 7],
        [other, 8],
      ] as const) {
        const set = await t.request('POST', `/v2/containers/${id}/custom_fields`, {
          key,
          body: { data: { attributes: { api_slug: 'seal', value } } },
        });
        assert.equal(set.status, 201, set.text);
      }
      await recordDomainEvents(t.database.db, [
        {
          account_id: accountId,
          shipment_id: s.shipmentId,
          container_id: boxId,
          event: 'container.transport.vessel_loaded',
          reference_type: 'transport_event',
          reference_id: s.transportEventIds.get(boxId)![0]!,
        },
      ]);
      worker.wake();
      const [got] = await eventually(async () => rx.at('/box').length > 0 && rx.at('/box'), 20_000);
      const fields = got!.json.included.filter((r: any) => r.type === 'custom_field');
      // The event's container's field, not its sibling's.
      assert.deepEqual(
        fields.map((f: any) => [f.attributes.api_slug, f.attributes.value, f.relationships.entity.data.id]),
        [['seal', 7, boxId]],
      );
    });
  });
}
