import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine as Worker } from '../../src/engine/start.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { seedShipment } from '../helpers/seed.ts';

// Issue 13 (2): parties, and a tracking request's customer carried to its shipment by the engine.

const partyBody = (company_name: unknown) => ({ data: { type: 'party', attributes: { company_name } } });

for (const engine of ENGINES) {
  describe(`parties [${engine}]`, () => {
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

    test('create, get, list, edit; blank and duplicate names are 422', async () => {
      const created = await t.request('POST', '/v2/parties', { body: partyBody('  ACME Imports ') });
      assert.equal(created.status, 201, created.text);
      const id = created.body.data.id;
      assert.equal(created.body.data.type, 'party');
      assert.equal(created.body.data.attributes.company_name, 'ACME Imports');
      assert.equal(created.body.links.self, `/v2/parties/${id}`);
      const got = await t.request('GET', `/v2/parties/${id}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.attributes.company_name, 'ACME Imports');

      for (const name of ['', '   ', undefined]) {
        const bad = await t.request('POST', '/v2/parties', {
          body: { data: { attributes: name === undefined ? {} : { company_name: name } } },
        });
        assert.equal(bad.status, 422, String(name));
        assert.equal(bad.body.errors[0].source.pointer, '/data/attributes/company_name');
        assert.equal(bad.body.errors[0].detail, "Company name can't be blank");
      }
      const dup = await t.request('POST', '/v2/parties', { body: partyBody('acme imports') });
      assert.equal(dup.status, 422);
      assert.match(dup.body.errors[0].detail, /already exists/);

      const second = await t.request('POST', '/v2/parties', { body: partyBody('Beta Ltd') });
      const list = await t.request('GET', '/v2/parties?page[size]=1');
      assert.equal(list.status, 200);
      assert.equal(list.body.meta.total, 2);
      assert.equal(list.body.data[0].id, second.body.data.id);

      const renamed = await t.request('PATCH', `/v2/parties/${id}`, { body: partyBody('ACME Global') });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.body.data.attributes.company_name, 'ACME Global');
      const blank = await t.request('PATCH', `/v2/parties/${id}`, { body: partyBody('') });
      assert.equal(blank.status, 422);
      const clash = await t.request('PATCH', `/v2/parties/${id}`, { body: partyBody('BETA LTD') });
      assert.equal(clash.status, 422);

      const other = await t.newAccount();
      assert.equal((await t.request('GET', `/v2/parties/${id}`, { key: other.key })).status, 404);
      assert.equal((await t.request('GET', '/v2/parties', { key: other.key })).body.meta.total, 0);
      assert.equal(
        (await t.request('PATCH', `/v2/parties/${id}`, { key: other.key, body: partyBody('X') })).status,
        404,
      );
      assert.equal((await t.request('GET', '/v2/parties/nope')).status, 404);
    });

    test('a tracking request with a customer: its shipment shows the name and filters by it', async () => {
      const party = await t.request('POST', '/v2/parties', { body: partyBody('Customer One') });
      const partyId = party.body.data.id;
      await seedShipment(t.database.db, t.accountId); // a shipment of no customer
      const tr = await t.request('POST', '/v2/tracking_requests', {
        body: {
          data: {
            type: 'tracking_request',
            attributes: { request_type: 'bill_of_lading', request_number: 'TEST-TR-SUCCEEDED', scac: 'TEST' },
            relationships: { customer: { data: { type: 'party', id: partyId } } },
          },
        },
      });
      assert.equal(tr.status, 201, tr.text);
      assert.deepEqual(tr.body.data.relationships.customer.data, { type: 'party', id: partyId });
      worker.wake();
      const shipmentId = await eventually(
        async () =>
          (await t.request('GET', `/v2/tracking_requests/${tr.body.data.id}`)).body.data.relationships
            .tracked_object.data?.id as string | undefined,
        20_000,
        'shipment',
      );
      const shipment = await t.request('GET', `/v2/shipments/${shipmentId}`);
      assert.equal(shipment.body.data.attributes.customer_name, 'Customer One');
      const filtered = await t.request('GET', `/v2/shipments?filter[customer_id]=${partyId}`);
      assert.deepEqual(
        filtered.body.data.map((s: any) => s.id),
        [shipmentId],
      );
      assert.equal((await t.request('GET', '/v2/shipments')).body.meta.total, 2);
      const bad = await t.request('GET', '/v2/shipments?filter[customer_id]=x');
      assert.equal(bad.status, 400);

      await t.request('PATCH', `/v2/parties/${partyId}`, { body: partyBody('Customer Renamed') });
      const after = await t.request('GET', `/v2/shipments/${shipmentId}`);
      assert.equal(after.body.data.attributes.customer_name, 'Customer Renamed');

      const unknown = await t.request('POST', '/v2/tracking_requests', {
        body: {
          data: {
            attributes: { request_type: 'bill_of_lading', request_number: 'TEST-TR-X1', scac: 'TEST' },
            relationships: {
              customer: { data: { type: 'party', id: '00000000-0000-4000-8000-000000000000' } },
            },
          },
        },
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.errors[0].source.pointer, '/data/relationships/customer/data');
    });
  });
}
