import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { portByLocode, terminalBySmdg, terminalsAtPort } from '../../src/reference/data.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { seedVessel, VESSEL } from '../helpers/seed.ts';

for (const engine of ENGINES) {
  describe(`reference data [${engine}]`, () => {
    let t: TestApp;
    let vesselId: string;
    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '10000' });
      vesselId = await seedVessel(t.database.db);
    });
    after(() => t.close());

    test('ports by UN/LOCODE (any case) or id', async () => {
      const rtm = portByLocode('NLRTM')!;
      for (const key of ['NLRTM', 'nlrtm', rtm.id, rtm.id.toUpperCase()]) {
        const res = await t.request('GET', `/v2/ports/${key}`);
        assert.equal(res.status, 200, key);
        assert.deepEqual(res.body.data, {
          id: rtm.id,
          type: 'port',
          attributes: {
            id: rtm.id,
            name: 'Rotterdam',
            code: 'NLRTM',
            state_abbr: 'ZH',
            city: null,
            country_code: 'NL',
            time_zone: 'Europe/Amsterdam',
            latitude: 51.91667,
            longitude: 4.5,
          },
          // Its terminals, as the live service lists them (issue 28).
          relationships: {
            terminals: { data: terminalsAtPort('NLRTM').map((x) => ({ type: 'terminal', id: x.id })) },
          },
          links: { self: `/v2/ports/${rtm.id}` },
        });
      }
      for (const key of ['XXXXX', 'NLRT', '00000000-0000-4000-8000-000000000000']) {
        const res = await t.request('GET', `/v2/ports/${key}`);
        assert.equal(res.status, 404, key);
        assert.equal(res.body.errors[0].code, 'not_found');
      }
      // Ports take no include: unknown parameters are ignored, as the reference does.
      assert.equal((await t.request('GET', '/v2/ports/NLRTM?include=terminals')).status, 200);
    });

    test('metro areas are the same places, typed metro_area', async () => {
      const chi = portByLocode('USCHI')!;
      const res = await t.request('GET', '/v2/metro_areas/uschi');
      assert.equal(res.status, 200);
      assert.equal(res.body.data.id, chi.id);
      assert.equal(res.body.data.type, 'metro_area');
      assert.equal(res.body.data.attributes.code, 'USCHI');
      assert.equal(res.body.data.attributes.state_abbr, 'IL');
      assert.equal(res.body.data.attributes.time_zone, 'America/Chicago');
      assert.equal(res.body.data.links.self, `/v2/metro_areas/${chi.id}`);
      assert.equal(
        (await t.request('GET', `/v2/metro_areas/${chi.id}`)).body.data.attributes.name,
        'Chicago',
      );
      assert.equal((await t.request('GET', '/v2/metro_areas/ZZZZZ')).status, 404);
    });

    test('terminals by id or LOCODE:SMDG / LOCODE:FIRMS', async () => {
      const dde = terminalBySmdg('NLRTM', 'DDE')!;
      for (const key of [dde.id, 'NLRTM:DDE', 'nlrtm:dde']) {
        const res = await t.request('GET', `/v2/terminals/${encodeURIComponent(key)}`);
        assert.equal(res.status, 200, key);
        const d = res.body.data;
        assert.equal(d.id, dde.id);
        assert.equal(d.type, 'terminal');
        assert.equal(d.attributes.name, dde.name);
        assert.equal(d.attributes.smdg_code, 'DDE');
        assert.equal(d.attributes.firms_code, null);
        assert.equal(d.attributes.bic_facility_code, null);
        assert.equal(d.attributes.city, null);
        assert.deepEqual(d.relationships.port.data, { type: 'port', id: portByLocode('NLRTM')!.id });
        assert.equal(d.links.self, `/v2/terminals/${dde.id}`);
        // As the live service (issue 28): its id among the attributes, what is known there, its kind.
        assert.equal(d.attributes.id, dde.id);
        assert.equal(d.attributes.facility_type, 'ocean_terminal');
        assert.equal(
          d.attributes.provided_data.available_for_pickup,
          false,
          'no terminal connection configured',
        );
      }
      const firms = await t.request('GET', '/v2/terminals/AEJEA:AEJEADPWJ2');
      assert.equal(firms.status, 200);
      assert.equal(firms.body.data.attributes.smdg_code, 'DPWJ2');
      for (const key of ['NLRTM:NOPE', 'DDE', '00000000-0000-4000-8000-000000000000']) {
        assert.equal((await t.request('GET', `/v2/terminals/${key}`)).status, 404, key);
      }
    });

    test('vessels by id or IMO number; shared by every account', async () => {
      const other = await t.newAccount('other');
      for (const [key, api] of [
        [vesselId, t.key],
        [VESSEL.imo, t.key],
        [`IMO${VESSEL.imo}`, other.key],
      ] as const) {
        const res = await t.request('GET', `/v2/vessels/${key}`, { key: api });
        assert.equal(res.status, 200, key);
        assert.deepEqual(res.body.data, {
          id: vesselId,
          type: 'vessel',
          attributes: {
            name: VESSEL.name,
            imo: VESSEL.imo,
            mmsi: null,
            latitude: null,
            longitude: null,
            nautical_speed_knots: null,
            navigational_heading_degrees: null,
            position_timestamp: null,
            positions: null,
          },
          links: { self: `/v2/vessels/${vesselId}` },
        });
      }
      const positions = await t.request(
        'GET',
        `/v2/vessels/${VESSEL.imo}?show_positions[from_timestamp]=2024-01-01T00:00:00Z`,
      );
      assert.equal(positions.status, 200);
      assert.equal(positions.body.data.attributes.positions, null);
      const badTime = await t.request('GET', `/v2/vessels/${VESSEL.imo}?show_positions[to_timestamp]=soon`);
      assert.equal(badTime.status, 400);
      assert.equal(badTime.body.errors[0].source.parameter, 'show_positions[to_timestamp]');
      for (const key of ['1234567', '123', 'ever-given', '00000000-0000-4000-8000-000000000000']) {
        assert.equal((await t.request('GET', `/v2/vessels/${key}`)).status, 404, key);
      }
    });

    test('authentication still applies; unknown parameters are ignored', async () => {
      const res = await t.request('GET', '/v2/ports/NLRTM', { key: null });
      assert.equal(res.status, 401);
      const extra = await t.request('GET', '/v2/terminals/NLRTM:DDE?colour=red');
      assert.equal(extra.status, 200);
      assert.equal((await t.request('POST', '/v2/ports/NLRTM')).status, 405);
    });
  });
}
