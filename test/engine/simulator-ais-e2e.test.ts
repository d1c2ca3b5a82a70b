import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { spawnSimulator } from '../helpers/simulator.ts';

// The whole vessel-position path: the carrier simulator (its own process) is both the DCSA
// carrier and the AIS-like feed (AIS_FEED_URL); a tracked container's map shows the feed's fix.

const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`AIS feed from the simulator process on the map [${engine}]`, () => {
    let t: TestApp;
    let sim: Awaited<ReturnType<typeof spawnSimulator>>;
    let worker: Engine;
    before(async () => {
      // Journeys are anchored on the epoch; ten days back and ten simulated days on, the
      // simulated clock is at the real now (which the API uses) and the SIMBL1C vessel is at sea.
      sim = await spawnSimulator(['--epoch', new Date(Date.now() - 10 * DAY).toISOString()]);
      await sim.advance(10);
      t = await startTestApp(engine, { ...FAST_ENGINE_ENV, AIS_FEED_URL: sim.url });
      const carriers = buildCarrierRegistry(
        parseCarriersConfig(
          JSON.stringify([
            {
              scac: 'MAEU',
              adapter: 'dcsa-tnt-v2',
              base_url: sim.url,
              auth: { type: 'headers', headers: { 'x-api-key': 'unused' } },
              requests_per_minute: 100000,
              number_types: ['bill_of_lading'],
              timeout_ms: 1000,
            },
          ]),
          { format: 'json', env: {} },
        ),
      );
      worker = startTestEngine(t.database, t.config, carriers);
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
      await sim?.close();
    });

    const feed = async (path: string) => {
      const res = await fetch(`${sim.url}${path}`);
      assert.equal(res.status, 200, `${path}: ${res.status}`);
      return ((await res.json()) as { data: any }).data;
    };

    test('the current vessel position and the past track come from the feed', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'SIMBL1C0001', scac: 'MAEU' }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      const tr = await eventually(async () => {
        const b = (await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`)).body;
        return b.data.attributes.status === 'created' && b;
      });
      const shipment = tr.included.find((r: any) => r.type === 'shipment');
      const containerId = shipment.relationships.containers.data[0].id;

      const map = await t.request('GET', `/v2/containers/${containerId}/map_geojson`);
      assert.equal(map.status, 200, map.text);
      const current = map.body.features.find((f: any) => f.properties.feature_type === 'current_vessel');
      assert.ok(current, 'a vessel at sea');
      const p = current.properties;
      assert.match(p.vessel_imo, /^\d{7}$/);

      // The feed's fix at the map's timestamp is the map's position, heading and speed.
      const fix = await feed(`/ais/positions/latest?imo=${p.vessel_imo}&at=${p.vessel_location_timestamp}`);
      assert.equal(fix.status, 'under_way');
      assert.deepEqual(current.geometry.coordinates, [fix.lon, fix.lat]);
      assert.equal(p.vessel_location_timestamp, fix.at);
      assert.equal(p.vessel_location_heading, fix.heading);
      assert.equal(p.vessel_location_speed, fix.speed_knots);

      // The sailed part of the route is the feed's track, starting at the departure.
      const past = map.body.features.find((f: any) => f.properties.feature_type === 'past_vessel_locations');
      const track = await feed(
        `/ais/positions?imo=${p.vessel_imo}&from=${p.departure_port_atd}&to=${p.vessel_location_timestamp}`,
      );
      assert.ok(track.length >= 2, 'days at sea give hourly fixes');
      assert.deepEqual(past.geometry.coordinates[0], [track[0].lon, track[0].lat]);
      assert.ok(past.geometry.coordinates.length >= track.length);
    });
  });
}
