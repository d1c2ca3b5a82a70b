import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine as Worker } from '../../src/engine/start.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { trackSandbox } from '../helpers/tracked.ts';

// Issue 13 (1): initial_custom_fields staged on a tracking request and applied by the engine's
// writes; definitions' default_value on new entities (migrations/0041); custom field filters on
// the shipment and container lists.

const define = async (t: TestApp, key: string, attributes: Record<string, unknown>) => {
  const res = await t.request('POST', '/v2/custom_field_definitions', {
    key,
    body: { data: { type: 'custom_field_definition', attributes } },
  });
  assert.equal(res.status, 201, res.text);
};

const slugValues = (doc: any) =>
  Object.fromEntries(doc.data.map((v: any) => [v.attributes.api_slug, v.attributes.value]));

for (const engine of ENGINES) {
  describe(`initial custom fields and filters [${engine}]`, () => {
    let t: TestApp;
    let worker: Worker;
    before(async () => {
      t = await startTestApp(engine, FAST_ENGINE_ENV);
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
    });
    after(async () => {
      await worker.stop();
      await t.close();
    });

    test('shipment entries to the shipment, container entries by number or to all', async () => {
      // The sandbox answers every account with the same boxes: learn their numbers first.
      const probe = await trackSandbox(t, worker, 'TEST-TR-SUCCEEDED');
      const boxes = await Promise.all(
        probe.containerIds.map(async (id) => (await t.request('GET', `/v2/containers/${id}`)).body.data),
      );
      assert.ok(boxes.length >= 1);
      const first = boxes[0].attributes.number as string;

      const { key } = await t.newAccount('staged');
      await define(t, key, {
        entity_type: 'Shipment',
        api_slug: 'booking_ref',
        display_name: 'B',
        data_type: 'short_text',
      });
      await define(t, key, {
        entity_type: 'Container',
        api_slug: 'po_number',
        display_name: 'PO',
        data_type: 'short_text',
      });
      await define(t, key, {
        entity_type: 'Container',
        api_slug: 'pallets',
        display_name: 'P',
        data_type: 'number',
      });

      const body = (initial_custom_fields: unknown) => ({
        data: {
          type: 'tracking_request',
          attributes: {
            request_type: 'bill_of_lading',
            request_number: 'TEST-TR-SUCCEEDED',
            scac: 'TEST',
            initial_custom_fields,
          },
        },
      });
      const bad = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: body({
          shipment: [{ api_slug: 'po_number', value: 'x' }],
          containers: [{ api_slug: 'pallets', value: 'ten' }],
        }),
      });
      assert.equal(bad.status, 422);
      assert.deepEqual(
        bad.body.errors.map((e: any) => e.source.pointer),
        [
          '/data/attributes/initial_custom_fields/shipment/0/api_slug',
          '/data/attributes/initial_custom_fields/containers/0/value',
        ],
      );

      const tracked = await trackSandboxWith(
        t,
        worker,
        key,
        body({
          shipment: [{ api_slug: 'booking_ref', value: 'BOOK-1' }],
          containers: [
            { api_slug: 'po_number', value: 'PO-FIRST', number: first.toLowerCase() },
            { api_slug: 'pallets', value: 12 },
          ],
        }),
      );
      const ship = await t.request('GET', `/v2/shipments/${tracked.shipmentId}/custom_fields`, { key });
      assert.deepEqual(slugValues(ship.body), { booking_ref: 'BOOK-1' });
      for (const cid of tracked.containerIds) {
        const c = await t.request('GET', `/v2/containers/${cid}`, { key });
        const values = slugValues(
          (await t.request('GET', `/v2/containers/${cid}/custom_fields`, { key })).body,
        );
        assert.equal(values.pallets, 12);
        assert.equal(values.po_number, c.body.data.attributes.number === first ? 'PO-FIRST' : undefined);
      }

      // Filters on the lists.
      const byShip = await t.request('GET', '/v2/shipments?filter[custom_fields][booking_ref]=BOOK-1', {
        key,
      });
      assert.deepEqual(
        byShip.body.data.map((s: any) => s.id),
        [tracked.shipmentId],
      );
      const none = await t.request('GET', '/v2/shipments?filter[custom_fields][booking_ref]=BOOK-2', { key });
      assert.equal(none.body.meta.total, 0);
      const byBox = await t.request('GET', '/v2/containers?filter[custom_fields][po_number]=PO-FIRST', {
        key,
      });
      assert.deepEqual(
        byBox.body.data.map((c: any) => c.attributes.number),
        [first],
      );
      const byNumber = await t.request('GET', '/v2/containers?filter[custom_fields][pallets]=12', { key });
      assert.equal(byNumber.body.meta.total, tracked.containerIds.length);
      // Another account's values never match.
      const theirs = await t.request('GET', '/v2/containers?filter[custom_fields][pallets]=12');
      assert.equal(theirs.body.meta.total, 0);
    });

    test('default_value: new entities get it, a given value replaces it, older ones stay empty', async () => {
      const { key } = await t.newAccount('defaults');
      // A request made before the definitions exist gets no default.
      const before = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: {
          data: {
            type: 'tracking_request',
            attributes: { request_type: 'booking_number', request_number: 'OLDER0001', scac: 'MSCU' },
          },
        },
      });
      assert.equal(before.status, 201, before.text);
      await define(t, key, {
        entity_type: 'Shipment',
        api_slug: 'lane',
        display_name: 'Lane',
        data_type: 'short_text',
        default_value: 'unassigned',
      });
      await define(t, key, {
        entity_type: 'Shipment',
        api_slug: 'desk',
        display_name: 'Desk',
        data_type: 'short_text',
        default_value: 'north',
      });
      await define(t, key, {
        entity_type: 'Container',
        api_slug: 'seals',
        display_name: 'Seals',
        data_type: 'number',
        default_value: 2,
      });
      await define(t, key, {
        entity_type: 'TrackingRequest',
        api_slug: 'urgent',
        display_name: 'Urgent',
        data_type: 'boolean',
        default_value: false,
      });
      await define(t, key, {
        entity_type: 'Container',
        api_slug: 'no_default',
        display_name: 'None',
        data_type: 'short_text',
      });
      const older = await t.request('GET', `/v2/tracking_requests/${before.body.data.id}/custom_fields`, {
        key,
      });
      assert.deepEqual(slugValues(older.body), {});

      // initial_custom_fields win over the default; the other fields get theirs, typed.
      const tracked = await trackSandboxWith(t, worker, key, {
        data: {
          type: 'tracking_request',
          attributes: {
            request_type: 'bill_of_lading',
            request_number: 'TEST-TR-SUCCEEDED',
            scac: 'TEST',
            initial_custom_fields: { shipment: [{ api_slug: 'lane', value: 'asia-eu' }] },
          },
        },
      });
      const ship = await t.request('GET', `/v2/shipments/${tracked.shipmentId}/custom_fields`, { key });
      assert.deepEqual(slugValues(ship.body), { lane: 'asia-eu', desk: 'north' });
      for (const cid of tracked.containerIds) {
        const box = await t.request('GET', `/v2/containers/${cid}/custom_fields`, { key });
        assert.deepEqual(slugValues(box.body), { seals: 2 });
      }
      const trs = await t.request('GET', '/v2/tracking_requests?filter[request_number]=TEST-TR-SUCCEEDED', {
        key,
      });
      const trId = trs.body.data[0].id as string;
      const trValues = await t.request('GET', `/v2/tracking_requests/${trId}/custom_fields`, { key });
      assert.deepEqual(slugValues(trValues.body), { urgent: false });

      // Defaults are values like any other: filters find them.
      const byDesk = await t.request('GET', '/v2/shipments?filter[custom_fields][desk]=north', { key });
      assert.deepEqual(
        byDesk.body.data.map((x: any) => x.id),
        [tracked.shipmentId],
      );
      // Creating a value over a default is not a duplicate: it replaces the default.
      const given = await t.request('POST', `/v2/shipments/${tracked.shipmentId}/custom_fields`, {
        key,
        body: { data: { type: 'custom_field', attributes: { api_slug: 'desk', value: 'south' } } },
      });
      assert.equal(given.status, 201, given.text);
      assert.equal(given.body.data.attributes.value, 'south');
      // ...but a value the user gave is: a second create is a 422.
      const again = await t.request('POST', `/v2/shipments/${tracked.shipmentId}/custom_fields`, {
        key,
        body: { data: { type: 'custom_field', attributes: { api_slug: 'desk', value: 'west' } } },
      });
      assert.equal(again.status, 422, again.text);
      const after = await t.request('GET', `/v2/shipments/${tracked.shipmentId}/custom_fields`, { key });
      assert.deepEqual(slugValues(after.body), { lane: 'asia-eu', desk: 'south' });
    });
  });
}

async function trackSandboxWith(t: TestApp, worker: Worker, key: string, body: unknown) {
  const res = await t.request('POST', '/v2/tracking_requests', { key, body });
  assert.equal(res.status, 201, res.text);
  worker.wake();
  const id = res.body.data.id as string;
  const until = Date.now() + 20_000;
  while (Date.now() < until) {
    const tr = await t.request('GET', `/v2/tracking_requests/${id}`, { key });
    const shipmentId = tr.body.data.relationships.tracked_object.data?.id as string | undefined;
    if (shipmentId) {
      const s = await t.request('GET', `/v2/shipments/${shipmentId}`, { key });
      const containerIds = s.body.data.relationships.containers.data.map((c: { id: string }) => c.id);
      if (containerIds.length) return { shipmentId, containerIds: containerIds as string[] };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out waiting for the shipment');
}
