import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { type SeededShipment, seedShipment } from '../helpers/seed.ts';

// Issue 13 (1): custom field definitions, options and values, flat and nested, through HTTP.

const defBody = (attributes: Record<string, unknown>) => ({
  data: { type: 'custom_field_definition', attributes },
});
const optBody = (attributes: Record<string, unknown>) => ({
  data: { type: 'custom_field_option', attributes },
});
const valBody = (attributes: Record<string, unknown>, entity?: { type: string; id: string }) => ({
  data: {
    type: 'custom_field',
    attributes,
    ...(entity ? { relationships: { entity: { data: entity } } } : {}),
  },
});

for (const engine of ENGINES) {
  describe(`custom fields [${engine}]`, () => {
    let t: TestApp;
    let seeded: SeededShipment;
    before(async () => {
      t = await startTestApp(engine);
      seeded = await seedShipment(t.database.db, t.accountId);
    });
    after(() => t.close());

    const define = async (attributes: Record<string, unknown>) => {
      const res = await t.request('POST', '/v2/custom_field_definitions', { body: defBody(attributes) });
      assert.equal(res.status, 201, res.text);
      return res.body.data;
    };

    test('definitions: create, get, list with filters, edit, duplicate slug, TrackingRequest', async () => {
      const d = await define({
        entity_type: 'Shipment',
        api_slug: 'po_total',
        display_name: 'PO total',
        data_type: 'number',
        validation: { min: 0 },
        default_value: 0,
      });
      assert.equal(d.type, 'custom_field_definition');
      assert.equal(d.attributes.api_slug, 'po_total');
      assert.deepEqual(d.attributes.validation, { min: 0 });
      assert.equal(d.attributes.default_value, 0);
      await define({
        entity_type: 'TrackingRequest',
        api_slug: 'desk',
        display_name: 'Desk',
        data_type: 'short_text',
      });
      await define({
        entity_type: 'Container',
        api_slug: 'po_number',
        display_name: 'PO number',
        data_type: 'short_text',
      });

      const dup = await t.request('POST', '/v2/custom_field_definitions', {
        body: defBody({
          entity_type: 'Container',
          api_slug: 'po_total',
          display_name: 'X',
          data_type: 'number',
        }),
      });
      assert.equal(dup.status, 422);
      assert.equal(dup.body.errors[0].source.pointer, '/data/attributes/api_slug');
      const badType = await t.request('POST', '/v2/custom_field_definitions', {
        body: defBody({ entity_type: 'Shipment', api_slug: 'x', display_name: 'X', data_type: 'colour' }),
      });
      assert.equal(badType.status, 422);
      const badDefault = await t.request('POST', '/v2/custom_field_definitions', {
        body: defBody({
          entity_type: 'Shipment',
          api_slug: 'y',
          display_name: 'Y',
          data_type: 'number',
          default_value: 'a',
        }),
      });
      assert.equal(badDefault.status, 422);
      assert.equal(badDefault.body.errors[0].source.pointer, '/data/attributes/default_value');

      const ships = await t.request('GET', '/v2/custom_field_definitions?filter[entity_type]=Shipment');
      assert.deepEqual(
        ships.body.data.map((x: any) => x.attributes.api_slug),
        ['po_total'],
      );
      const byName = await t.request('GET', '/v2/custom_field_definitions?filter[display_name]=po');
      assert.equal(byName.body.meta.total, 2);
      const bad = await t.request('GET', '/v2/custom_field_definitions?filter[entity_type]=Boat');
      assert.equal(bad.status, 400);

      const edited = await t.request('PATCH', `/v2/custom_field_definitions/${d.id}`, {
        body: defBody({ display_name: 'Purchase order total', description: 'USD' }),
      });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.body.data.attributes.display_name, 'Purchase order total');
      const got = await t.request('GET', `/v2/custom_field_definitions/${d.id}`);
      assert.equal(got.body.data.attributes.description, 'USD');
      const other = await t.newAccount();
      assert.equal(
        (await t.request('GET', `/v2/custom_field_definitions/${d.id}`, { key: other.key })).status,
        404,
      );
    });

    test('options and enum values; an option in use cannot be deleted', async () => {
      const d = await define({
        entity_type: 'Shipment',
        api_slug: 'priority',
        display_name: 'Priority',
        data_type: 'enum',
      });
      const base = `/v2/custom_field_definitions/${d.id}/options`;
      const high = await t.request('POST', base, {
        body: optBody({ label: 'High', value: 'high', position: 1 }),
      });
      assert.equal(high.status, 201, high.text);
      const low = await t.request('POST', base, {
        body: optBody({ label: 'Low', value: 'low', position: 2 }),
      });
      const dupOpt = await t.request('POST', base, { body: optBody({ label: 'Again', value: 'high' }) });
      assert.equal(dupOpt.status, 422);
      const list = await t.request('GET', base);
      assert.deepEqual(
        list.body.data.map((o: any) => o.attributes.value),
        ['high', 'low'],
      );
      const relabel = await t.request('PATCH', `${base}/${high.body.data.id}`, {
        body: optBody({ label: 'Urgent' }),
      });
      assert.equal(relabel.body.data.attributes.label, 'Urgent');

      const path = `/v2/shipments/${seeded.shipmentId}/custom_fields`;
      const wrong = await t.request('POST', path, {
        body: valBody({ api_slug: 'priority', value: 'medium' }),
      });
      assert.equal(wrong.status, 422);
      assert.equal(wrong.body.errors[0].source.pointer, '/data/attributes/value');
      const v = await t.request('POST', path, { body: valBody({ api_slug: 'priority', value: 'high' }) });
      assert.equal(v.status, 201, v.text);
      assert.equal(v.body.data.attributes.value, 'high');
      assert.equal(v.body.data.attributes.display_value, 'Urgent');
      assert.deepEqual(v.body.data.relationships.entity.data, { type: 'shipment', id: seeded.shipmentId });

      const inUse = await t.request('DELETE', `${base}/${high.body.data.id}`);
      assert.equal(inUse.status, 422);
      const free = await t.request('DELETE', `${base}/${low.body.data.id}`);
      assert.equal(free.status, 200);
      assert.equal((await t.request('GET', `${base}/${low.body.data.id}`)).status, 404);
      const textOpt = await t.request('POST', '/v2/custom_field_definitions', {
        body: defBody({
          entity_type: 'Shipment',
          api_slug: 'note',
          display_name: 'Note',
          data_type: 'short_text',
        }),
      });
      const noOptions = await t.request(
        'POST',
        `/v2/custom_field_definitions/${textOpt.body.data.id}/options`,
        {
          body: optBody({ label: 'A', value: 'a' }),
        },
      );
      assert.equal(noOptions.status, 422);
    });

    test('values keep their JSON type and are checked; flat and nested paths agree', async () => {
      const cid = seeded.containerIds[0]!;
      const defs = {
        weight: await define({
          entity_type: 'Container',
          api_slug: 'weight',
          display_name: 'W',
          data_type: 'number',
          validation: { max: 100 },
        }),
        hazmat: await define({
          entity_type: 'Container',
          api_slug: 'hazmat',
          display_name: 'H',
          data_type: 'boolean',
        }),
        due: await define({
          entity_type: 'Container',
          api_slug: 'due',
          display_name: 'D',
          data_type: 'date',
        }),
      };
      const created = await t.request('POST', '/v2/custom_fields', {
        body: valBody({ api_slug: 'weight', value: 21.5 }, { type: 'container', id: cid }),
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.data.attributes.value, 21.5);
      const id = created.body.data.id;
      const cases: Array<[string, unknown]> = [
        ['weight', '21.5'],
        ['weight', 101],
        ['hazmat', 'yes'],
        ['due', '2024-02-30'],
      ];
      for (const [api_slug, value] of cases) {
        const res = await t.request('POST', `/v2/containers/${cid}/custom_fields`, {
          body: valBody({ api_slug, value }),
        });
        assert.equal(res.status, 422, `${api_slug}=${JSON.stringify(value)}`);
      }
      const wrongEntity = await t.request('POST', '/v2/custom_fields', {
        body: valBody({ api_slug: 'weight', value: 1 }, { type: 'shipment', id: seeded.shipmentId }),
      });
      assert.equal(wrongEntity.status, 422);
      assert.equal(wrongEntity.body.errors[0].source.pointer, '/data/relationships/entity/data');
      const again = await t.request('POST', '/v2/custom_fields', {
        body: valBody({ api_slug: 'weight', value: 2 }, { type: 'container', id: cid }),
      });
      assert.equal(again.status, 422);

      await t.request('POST', `/v2/containers/${cid}/custom_fields`, {
        body: valBody({ api_slug: 'hazmat', value: false }),
      });
      const nested = await t.request('GET', `/v2/containers/${cid}/custom_fields`);
      assert.deepEqual(
        nested.body.data.map((v: any) => [
          v.attributes.api_slug,
          v.attributes.value,
          v.attributes.display_value,
        ]),
        [
          ['weight', 21.5, '21.5'],
          ['hazmat', false, 'No'],
        ],
      );
      const patched = await t.request('PATCH', `/v2/containers/${cid}/custom_fields/weight`, {
        body: valBody({ value: 42 }),
      });
      assert.equal(patched.status, 200, patched.text);
      assert.equal((await t.request('GET', `/v2/custom_fields/${id}`)).body.data.attributes.value, 42);
      const flatPatch = await t.request('PATCH', `/v2/custom_fields/${id}`, {
        body: valBody({ value: 'x' }),
      });
      assert.equal(flatPatch.status, 422);

      const filtered = await t.request(
        'GET',
        `/v2/custom_fields?filter[entity_type]=Container&filter[definition_id]=${defs.weight.id}`,
      );
      assert.deepEqual(
        filtered.body.data.map((v: any) => v.id),
        [id],
      );
      assert.equal((await t.request('GET', '/v2/custom_fields?filter[entity_id]=nope')).status, 400);

      const del = await t.request('DELETE', `/v2/containers/${cid}/custom_fields/hazmat`);
      assert.equal(del.status, 204);
      assert.equal((await t.request('DELETE', `/v2/containers/${cid}/custom_fields/hazmat`)).status, 404);
      assert.equal(
        (await t.request('GET', '/v2/containers/00000000-0000-4000-8000-000000000000/custom_fields')).status,
        404,
      );
      const other = await t.newAccount();
      assert.equal((await t.request('GET', `/v2/custom_fields/${id}`, { key: other.key })).status, 404);
      assert.equal(
        (await t.request('GET', `/v2/containers/${cid}/custom_fields`, { key: other.key })).status,
        404,
      );

      // Deleting the definition takes its values with it.
      assert.equal((await t.request('DELETE', `/v2/custom_field_definitions/${defs.weight.id}`)).status, 200);
      assert.equal((await t.request('GET', `/v2/custom_fields/${id}`)).status, 404);
    });

    test('tracking request values through the nested path', async () => {
      const path = `/v2/tracking_requests/${seeded.trackingRequestId}/custom_fields`;
      const res = await t.request('POST', path, { body: valBody({ api_slug: 'desk', value: 'Rotterdam' }) });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.relationships.entity.data.type, 'tracking_request');
      const wrong = await t.request('POST', path, { body: valBody({ api_slug: 'po_total', value: 1 }) });
      assert.equal(wrong.status, 422);
    });
  });
}
