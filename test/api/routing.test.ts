import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createSandboxAdapter } from '../../src/carriers/sandbox.ts';
import type { Engine } from '../../src/engine/start.ts';
import { containerMap } from '../../src/maps/service.ts';
import { portByLocode } from '../../src/reference/data.ts';
import { memoryAis } from '../../src/routing/ais.ts';
import { haversineNm, type LonLat } from '../../src/routing/geo.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { seedShipment } from '../helpers/seed.ts';
import { referenceChecks } from '../routing/reference-schema.ts';

// The routing endpoints through HTTP, on data the real engine stored from the sandbox line
// (SCAC TEST). The sandbox's journeys are anchored 20 days back, so at real time some vessels are
// under way (SIMBL1C, SIMTS on its second leg, SIMFDR), one container is on rail (SIMRAIL) and
// the published TEST-TR-SUCCEEDED journey is over.

const DAY = 86_400_000;
// Every sandbox scenario that yields a container (SIMNONE, SIMCANC and the flaky one aside).
const NUMBERS = [
  'TEST-TR-SUCCEEDED',
  'SIMBL1C0001',
  'SIMBL3C0001',
  'SIMTS0001',
  'SIMFDR0001',
  'SIMRAIL0001',
  'SIMETA0001',
  'SIMROLL0001',
  'SIMEMPTY0001',
  'SIMLATE0001',
  'BOLBKG0001',
];
const UNDER_WAY = ['SIMBL1C0001', 'SIMTS0001', 'SIMFDR0001'];

function checkLine(coords: LonLat[], what: string) {
  assert.ok(coords.length >= 2, what);
  for (const [lon, lat] of coords)
    assert.ok(Math.abs(lon) <= 180 && Math.abs(lat) <= 90, `${what}: in range`);
  for (let i = 1; i < coords.length; i++) {
    assert.ok(haversineNm(coords[i - 1]!, coords[i]!) < 90, `${what}: ordered, no jumps (step ${i})`);
  }
}

for (const engine of ENGINES) {
  describe(`routing endpoints [${engine}]`, () => {
    const reference = referenceChecks();
    let t: TestApp;
    let worker: Engine;
    const containers = new Map<string, string>();
    // An account tracking only SIMBL1C0001: the sandbox reuses vessels across scenarios, and the
    // future-positions defaults pick among all of an account's shipments on the vessel.
    let solo: { accountId: string; key: string };
    let soloContainer: string;

    const track = async (number: string, key: string): Promise<string> => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: trBody({ request_type: 'bill_of_lading', request_number: number, scac: 'TEST' }),
      });
      assert.equal(res.status, 201);
      worker.wake();
      const tr = await eventually(async () => {
        const r = await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`, { key });
        return r.body.data.attributes.status !== 'pending' && r.body;
      });
      const shipment = await t.request(
        'GET',
        `/v2/shipments/${tr.data.relationships.tracked_object.data.id}`,
        {
          key,
        },
      );
      return shipment.body.data.relationships.containers.data[0].id;
    };

    before(async () => {
      t = await startTestApp(engine, FAST_ENGINE_ENV);
      const epoch = new Date(Math.floor(Date.now() / DAY) * DAY - 20 * DAY);
      worker = startTestEngine(t.database, t.config, new Map([['TEST', createSandboxAdapter({ epoch })]]));
      for (const number of NUMBERS) containers.set(number, await track(number, t.key));
      solo = await t.newAccount('solo');
      soloContainer = await track('SIMBL1C0001', solo.key);
      await worker.stop();
    });
    after(async () => {
      await worker.stop();
      await t.close();
    });

    const map = async (number: string) => {
      const res = await t.request('GET', `/v2/containers/${containers.get(number)}/map_geojson`);
      assert.equal(res.status, 200, res.text);
      return res;
    };
    const soloMap = async () => {
      const res = await t.request('GET', `/v2/containers/${soloContainer}/map_geojson`, { key: solo.key });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    test('map_geojson of every scenario draws (checked against the reference schemas below)', async () => {
      for (const number of NUMBERS) {
        const res = await map(number);
        assert.match(res.headers.get('content-type') ?? '', /application\/geo\+json/);
        const fc = res.body;
        reference.map(fc, number);
        assert.equal(fc.type, 'FeatureCollection');
        const ports = fc.features.filter((f: any) => f.properties.feature_type === 'port');
        assert.ok(ports.length >= 2, `${number}: ports`);
        assert.equal(ports[0].properties.label, 'POL', number);
        assert.ok(['POD', 'DEST'].includes(ports.at(-1).properties.label), number);
        assert.deepEqual(
          ports.map((p: any) => p.properties.ports_sequence),
          ports.map((_: unknown, i: number) => i + 1),
        );
        for (const f of fc.features) {
          if (f.geometry.type === 'LineString')
            checkLine(f.geometry.coordinates, `${number} ${f.properties.feature_type}`);
          else checkLine([f.geometry.coordinates, f.geometry.coordinates], number);
        }
        // A current vessel exactly when the route has a water leg departed and not yet arrived.
        const route = await t.request('GET', `/v2/containers/${containers.get(number)}/route`);
        const calls = route.body.included;
        const sailing = calls.some(
          (c: any, i: number) =>
            c.attributes.outbound_mode === 'vessel' &&
            c.attributes.outbound_atd_at &&
            calls[i + 1] &&
            !calls[i + 1].attributes.inbound_ata_at,
        );
        const vessels = fc.features.filter((f: any) => f.properties.feature_type === 'current_vessel');
        assert.equal(vessels.length, sailing ? 1 : 0, `${number}: current vessel`);
        if (UNDER_WAY.includes(number)) assert.equal(vessels.length, 1, `${number} is under way`);
      }
    });

    test('a vessel under way: track to the vessel, partial leg from it to the next port', async () => {
      const fc = (await map('SIMTS0001')).body;
      const types = fc.features.map((f: any) => f.properties.feature_type);
      assert.deepEqual(types, [
        'port',
        'past_vessel_locations',
        'port',
        'past_vessel_locations',
        'current_vessel',
        'estimated_partial_leg',
        'port',
      ]);
      const [pol, , ts, past, vessel, partial, pod] = fc.features;
      assert.deepEqual(
        [pol, ts, pod].map((f: any) => f.properties.name),
        ['Shanghai', 'Singapore', 'Rotterdam'],
      );
      assert.deepEqual(past.geometry.coordinates[0], ts.geometry.coordinates);
      assert.deepEqual(past.geometry.coordinates.at(-1), vessel.geometry.coordinates);
      assert.deepEqual(partial.geometry.coordinates[0], vessel.geometry.coordinates);
      assert.deepEqual(partial.geometry.coordinates.at(-1), pod.geometry.coordinates);
      assert.equal(vessel.properties.departure_port_label, 'TS1');
      assert.equal(vessel.properties.arrival_port_id, pod.properties.location_id);
      assert.ok(vessel.properties.vessel_location_speed > 5 && vessel.properties.vessel_location_speed < 30);
    });

    test('a finished journey is past track from port to port, and a rail leg draws nothing', async () => {
      const done = (await map('TEST-TR-SUCCEEDED')).body;
      assert.deepEqual(
        done.features.map((f: any) => f.properties.feature_type),
        ['port', 'past_vessel_locations', 'port'],
      );
      const rail = (await map('SIMRAIL0001')).body;
      assert.deepEqual(
        rail.features.map((f: any) => [f.properties.feature_type, f.properties.label]),
        [
          ['port', 'POL'],
          ['past_vessel_locations', undefined],
          ['port', 'POD'],
          ['port', 'DEST'],
        ],
      );
    });

    test('a repeated map request is answered from the cache', async () => {
      const path = `/v2/containers/${containers.get('SIMBL1C0001')}/map_geojson`;
      const first = await t.request('GET', path);
      const t0 = performance.now();
      const second = await t.request('GET', path);
      const ms = performance.now() - t0;
      assert.equal(second.headers.get('x-cache'), 'hit');
      assert.equal(second.text, first.text);
      assert.ok(ms < 250, `${ms} ms (loose bound; docs/routing.md has the measured figure)`);
    });

    test('route: calls in order with modes, carriers, voyages, times and relationships', async () => {
      const id = containers.get('SIMTS0001')!;
      const res = await t.request('GET', `/v2/containers/${id}/route?include=port,vessel,route_location`);
      assert.equal(res.status, 200, res.text);
      const route = res.body.data;
      assert.equal(route.type, 'route');
      assert.deepEqual(route.relationships.cargo.data, { type: 'container', id });
      assert.equal(route.relationships.shipment.data.type, 'shipment');
      const calls = route.relationships.route_locations.data.map((r: any) =>
        res.body.included.find((x: any) => x.type === 'route_location' && x.id === r.id),
      );
      const locodes = calls.map(
        (c: any) =>
          res.body.included.find((x: any) => x.type === 'port' && x.id === c.relationships.location.data.id)
            .attributes.code,
      );
      assert.deepEqual(locodes, ['CNSGH', 'SGSIN', 'NLRTM']);
      const [pol, ts, pod] = calls;
      assert.equal(pol.attributes.inbound_mode, null);
      assert.equal(pol.attributes.outbound_mode, 'vessel');
      assert.equal(pol.attributes.outbound_scac, 'TEST');
      assert.ok(pol.attributes.outbound_atd_at);
      assert.ok(ts.attributes.inbound_ata_at && ts.attributes.outbound_atd_at);
      assert.notEqual(ts.relationships.inbound_vessel.data.id, ts.relationships.outbound_vessel.data.id);
      assert.equal(ts.attributes.outbound_voyage_number, pod.attributes.inbound_voyage_number);
      assert.deepEqual(pod.relationships.inbound_vessel.data, ts.relationships.outbound_vessel.data);
      assert.equal(pod.attributes.inbound_ata_at, null);
      assert.ok(pod.attributes.inbound_eta_at);
      for (const c of calls) assert.deepEqual(c.relationships.route.data, { type: 'route', id: route.id });
      assert.equal(res.body.included.filter((x: any) => x.type === 'vessel').length, 2);

      const rail = await t.request('GET', `/v2/containers/${containers.get('SIMRAIL0001')}/route`);
      const modes = rail.body.included.map((c: any) => [
        c.attributes.inbound_mode,
        c.attributes.outbound_mode,
      ]);
      assert.deepEqual(modes, [
        [null, 'vessel'],
        ['vessel', 'rail'],
        ['rail', null],
      ]);
      assert.ok(
        rail.body.included.every((x: any) => x.type === 'route_location'),
        'route_location by default',
      );
    });

    test('route and map: unknown, malformed and other accounts’ containers are 404; bad include is 400', async () => {
      const other = await t.newAccount('other');
      const id = containers.get('SIMTS0001')!;
      for (const path of [`/v2/containers/${id}/map_geojson`, `/v2/containers/${id}/route`]) {
        assert.equal((await t.request('GET', path, { key: other.key })).status, 404);
      }
      assert.equal((await t.request('GET', '/v2/containers/not-a-uuid/map_geojson')).status, 404);
      assert.equal((await t.request('GET', `/v2/containers/${crypto.randomUUID()}/route`)).status, 404);
      const bad = await t.request('GET', `/v2/containers/${id}/route?include=cargo`);
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].source.parameter, 'include');
    });

    test('future_positions: defaults to the leg under way, ordered estimates to the port at its ETA', async () => {
      const fc = await soloMap();
      const vessel = fc.features.find((f: any) => f.properties.feature_type === 'current_vessel');
      const pod = fc.features.filter((f: any) => f.properties.feature_type === 'port').at(-1);
      const pol = fc.features[0];
      const vesselId = vessel.properties.vessel_id;
      const res = await t.request('GET', `/v2/vessels/${vesselId}/future_positions`, { key: solo.key });
      assert.equal(res.status, 200, res.text);
      reference.positions(res.body, 'future_positions, leg under way');
      const a = res.body.data.attributes;
      assert.equal(a.name, vessel.properties.vessel_name);
      assert.ok(
        haversineNm([a.longitude, a.latitude], vessel.geometry.coordinates) < 20,
        'starts where the map has it',
      );
      assert.equal(res.body.meta.port_id, pod.properties.location_id);
      assert.equal(res.body.meta.previous_port_id, pol.properties.location_id);
      const ps = a.positions;
      assert.ok(ps.length > 100 && ps.length <= 2000);
      assert.ok(ps.every((p: any) => p.estimated === true));
      const times = ps.map((p: any) => Date.parse(p.timestamp));
      for (let i = 1; i < times.length; i++) assert.ok(times[i] > times[i - 1]);
      assert.equal(times[1] - times[0], res.body.meta.position_step_seconds * 1000);
      assert.deepEqual([ps.at(-1).longitude, ps.at(-1).latitude], pod.geometry.coordinates);
      assert.equal(
        new Date(times.at(-1)).toISOString(),
        new Date(pod.properties.inbound_eta_at).toISOString(),
      );
      checkLine(
        ps.map((p: any) => [p.longitude, p.latitude]),
        'positions',
      );

      const explicit = await t.request(
        'GET',
        `/v2/vessels/${vesselId}/future_positions?port_id=${pod.properties.location_id}&previous_port_id=${pol.properties.location_id}`,
        { key: solo.key },
      );
      assert.equal(explicit.status, 200);
      assert.equal(explicit.body.data.attributes.positions.length, ps.length);
    });

    test('future_positions_with_coordinates: from the given point, or from the current estimate', async () => {
      const fc = await soloMap();
      const vesselId = fc.features.find((f: any) => f.properties.feature_type === 'current_vessel').properties
        .vessel_id;
      const pod = fc.features.filter((f: any) => f.properties.feature_type === 'port').at(-1);
      const pol = fc.features[0];
      const q = `port_id=${pod.properties.location_id}&previous_port_id=${pol.properties.location_id}`;
      const res = await t.request(
        'GET',
        `/v2/vessels/${vesselId}/future_positions_with_coordinates?${q}&latitude=5.5&longitude=80.5`,
        { key: solo.key },
      );
      assert.equal(res.status, 200, res.text);
      reference.positions(res.body, 'future_positions_with_coordinates');
      const ps = res.body.data.attributes.positions;
      assert.deepEqual([ps[0].longitude, ps[0].latitude], [80.5, 5.5]);
      assert.deepEqual([ps.at(-1).longitude, ps.at(-1).latitude], pod.geometry.coordinates);
      const bare = await t.request('GET', `/v2/vessels/${vesselId}/future_positions_with_coordinates`, {
        key: solo.key,
      });
      assert.equal(bare.status, 200);
      assert.ok(bare.body.data.attributes.latitude !== null);
    });

    test('future_positions: parameter and lookup errors', async () => {
      const fc = await soloMap();
      const vesselId = fc.features.find((f: any) => f.properties.feature_type === 'current_vessel').properties
        .vessel_id;
      const port = portByLocode('NLRTM')!.id;
      const cases: Array<[string, number, string?]> = [
        [`/v2/vessels/${vesselId}/future_positions?port_id=${port}`, 400, 'previous_port_id'],
        [`/v2/vessels/${vesselId}/future_positions?port_id=x&previous_port_id=${port}`, 400, 'port_id'],
        [
          `/v2/vessels/${vesselId}/future_positions?port_id=${crypto.randomUUID()}&previous_port_id=${port}`,
          400,
          'port_id',
        ],
        [`/v2/vessels/${vesselId}/future_positions_with_coordinates?latitude=10`, 400, 'longitude'],
        [
          `/v2/vessels/${vesselId}/future_positions_with_coordinates?latitude=95&longitude=10`,
          400,
          'latitude',
        ],
        [`/v2/vessels/${crypto.randomUUID()}/future_positions`, 404],
        ['/v2/vessels/nope/future_positions', 404],
      ];
      for (const [path, status, parameter] of cases) {
        const res = await t.request('GET', path);
        assert.equal(res.status, status, path);
        if (parameter) assert.equal(res.body.errors[0].source.parameter, parameter, path);
      }
      // A vessel this account has no voyage of, with no ports given.
      const other = await t.newAccount('third');
      const none = await t.request('GET', `/v2/vessels/${vesselId}/future_positions`, { key: other.key });
      assert.equal(none.status, 400);
    });

    test('an AIS provider’s fix replaces the estimate on the map', async () => {
      const id = containers.get('SIMBL1C0001')!;
      const estimated = (await map('SIMBL1C0001')).body;
      const vessel = estimated.features.find(
        (f: any) => f.properties.feature_type === 'current_vessel',
      ).properties;
      const ais = memoryAis();
      const now = new Date();
      const ref = { id: vessel.vessel_id, imo: vessel.vessel_imo, name: vessel.vessel_name };
      ais.record(ref, {
        point: [88, 5],
        at: new Date(now.getTime() - 3_600_000),
        heading: 250,
        speedKnots: 17,
      });
      ais.record(ref, {
        point: [90, 6],
        at: new Date(now.getTime() - 600_000),
        heading: 260,
        speedKnots: 18,
      });
      const live = await containerMap({ db: t.database.db, ais, now: () => now }, t.accountId, id);
      reference.map(live, 'live AIS position');
      const current = live.features.find((f) => f.properties.feature_type === 'current_vessel')!;
      assert.deepEqual(current.geometry.coordinates, [90, 6]);
      assert.equal(current.properties.vessel_location_speed, 18);
      const past = live.features.find((f) => f.properties.feature_type === 'past_vessel_locations')!;
      assert.deepEqual(past.geometry.coordinates, [
        [88, 5],
        [90, 6],
      ]);
      const partial = live.features.find((f) => f.properties.feature_type === 'estimated_partial_leg')!;
      assert.deepEqual((partial.geometry.coordinates as LonLat[])[0], [90, 6]);
    });

    test('the OpenAPI document lists the routing endpoints', async () => {
      const doc = (await t.request('GET', '/v2/openapi.json')).body;
      for (const path of [
        '/v2/containers/{id}/map_geojson',
        '/v2/containers/{id}/route',
        '/v2/vessels/{id}/future_positions',
        '/v2/vessels/{id}/future_positions_with_coordinates',
      ]) {
        assert.ok(doc.paths[path]?.get, path);
      }
    });
    reference.declareTest();
  });
}

for (const engine of ENGINES) {
  describe(`routing endpoints, a voyage not yet sailed [${engine}]`, () => {
    const reference = referenceChecks();
    let t: TestApp;
    let containerId: string;
    let vesselId: string;
    const etd = new Date(Date.now() + 2 * DAY);
    const eta = new Date(Date.now() + 30 * DAY);

    before(async () => {
      t = await startTestApp(engine);
      const seeded = await seedShipment(t.database.db, t.accountId);
      containerId = seeded.containerIds[0]!;
      vesselId = seeded.vesselId;
      // The seeded journey sailed in 2024; turn it back into one that has not sailed yet: no
      // reported events, the schedule moved into the future.
      for (const table of ['transport_events', 'estimated_events', 'raw_events'] as const)
        await t.database.db.deleteFrom(table).where('shipment_id', '=', seeded.shipmentId).execute();
      await t.database.db
        .updateTable('shipments')
        .set({
          pol_etd_at: etd,
          pol_atd_at: null,
          pod_eta_at: eta,
          pod_ata_at: null,
          transshipment_locodes: sql`'{}'::text[]`,
        })
        .where('id', '=', seeded.shipmentId)
        .execute();
    });
    after(() => t.close());

    test('the map shows the planned lane; positions start at the POL at the ETD', async () => {
      const map = await t.request('GET', `/v2/containers/${containerId}/map_geojson`);
      assert.equal(map.status, 200);
      reference.map(map.body, 'not yet sailed');
      // POL -> POD by sea; the inland leg to Duisburg (mode not known yet) is not drawn.
      assert.deepEqual(
        map.body.features.map((f: any) => [f.properties.feature_type, f.properties.label]),
        [
          ['port', 'POL'],
          ['estimated_full_legs', undefined],
          ['port', 'POD'],
          ['port', 'DEST'],
        ],
      );
      const [pol, lane, pod] = map.body.features;
      assert.deepEqual(lane.geometry.coordinates[0], pol.geometry.coordinates);
      assert.deepEqual(lane.geometry.coordinates.at(-1), pod.geometry.coordinates);
      assert.equal(lane.properties.previous_port_id, pol.properties.location_id);
      assert.equal(lane.properties.next_port_id, pod.properties.location_id);

      const res = await t.request('GET', `/v2/vessels/${vesselId}/future_positions`);
      assert.equal(res.status, 200, res.text);
      reference.positions(res.body, 'future_positions, not yet sailed');
      const a = res.body.data.attributes;
      assert.equal(a.latitude, null, 'not under way: no current position');
      assert.deepEqual([a.positions[0].longitude, a.positions[0].latitude], pol.geometry.coordinates);
      assert.equal(Date.parse(a.positions[0].timestamp), etd.getTime());
      assert.equal(Date.parse(a.positions.at(-1).timestamp), eta.getTime());
      assert.equal(res.body.meta.previous_port_id, pol.properties.location_id);
    });
    reference.declareTest();
  });
}
