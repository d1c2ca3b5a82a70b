import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { portByLocode } from '../../src/reference/data.ts';
import { haversineNm, type LonLat } from '../../src/routing/geo.ts';
import { buildJourney, type EventFacts, type ShipmentFacts } from '../../src/routing/journey.ts';
import { buildMapGeoJson } from '../../src/routing/map-geojson.ts';
import { portRoute } from '../../src/routing/port-routes.ts';
import { DEFAULT_KNOTS, estimateAtSea, legAtSea, legTimings } from '../../src/routing/schedule.ts';
import { positionsBetween } from '../../src/routing/track.ts';
import { mapErrors, REFERENCE_SKIP, referenceChecks, referenceMapExample } from './reference-schema.ts';

const H = 3_600_000;
const D = 24 * H;
const T0 = Date.parse('2026-03-01T00:00:00Z');
const at = (days: number) => new Date(T0 + days * D);
const P = 'container.transport.';
const V1 = '00000000-0000-4000-8000-000000000001';
const V2 = '00000000-0000-4000-8000-000000000002';

const routeOf = (leg: { from: { locode: string }; to: { locode: string } }) =>
  portRoute(portByLocode(leg.from.locode)!, portByLocode(leg.to.locode)!);

function shipment(over: Partial<ShipmentFacts> = {}): ShipmentFacts {
  return {
    scac: 'TEST',
    port_of_lading_locode: 'CNSGH',
    port_of_discharge_locode: 'NLRTM',
    destination_locode: null,
    transshipment_locodes: ['SGSIN'],
    pod_terminal_id: null,
    destination_terminal_id: null,
    pod_vessel_id: V2,
    pod_voyage_number: '2W',
    pol_etd_at: at(0),
    pol_atd_at: at(0),
    pod_eta_at: at(34),
    pod_ata_at: null,
    destination_eta_at: null,
    destination_ata_at: null,
    ...over,
  };
}

const ev = (
  event: string,
  days: number,
  locode: string,
  vessel: string | null,
  voyage: string | null,
): EventFacts => ({
  event: `${P}${event}`,
  timestamp: at(days),
  location_locode: locode,
  terminal_id: null,
  vessel_id: vessel,
  voyage_number: voyage,
});

/** Shanghai -> Singapore (vessel 1) -> Rotterdam (vessel 2), under way on the second leg. */
const TS_EVENTS = [
  ev('vessel_loaded', -0.5, 'CNSGH', V1, '1S'),
  ev('vessel_departed', 0, 'CNSGH', V1, '1S'),
  ev('transshipment_arrived', 6, 'SGSIN', V1, '1S'),
  ev('transshipment_discharged', 6.3, 'SGSIN', V1, '1S'),
  ev('transshipment_loaded', 9, 'SGSIN', V2, '2W'),
  ev('transshipment_departed', 10, 'SGSIN', V2, '2W'),
];
const CONTAINER = { pod_terminal_id: null, ind_eta_at: null, ind_ata_at: null };
const VESSELS = new Map([
  [V1, { id: V1, name: 'TEST ONE', imo: '9000001' }],
  [V2, { id: V2, name: 'TEST TWO', imo: '9000002' }],
]);

describe('journey from stored facts', () => {
  test('calls in order with roles, labels, vessels and times per side', () => {
    const j = buildJourney(shipment(), CONTAINER, TS_EVENTS);
    assert.deepEqual(
      j.calls.map((c) => [c.locode, c.label, c.sequence]),
      [
        ['CNSGH', 'POL', 1],
        ['SGSIN', 'TS1', 2],
        ['NLRTM', 'POD', 3],
      ],
    );
    const [pol, ts, pod] = j.calls;
    assert.equal(pol!.outbound.vessel_id, V1);
    assert.equal(pol!.outbound.actual?.getTime(), at(0).getTime());
    assert.equal(ts!.inbound.vessel_id, V1);
    assert.equal(ts!.inbound.actual?.getTime(), at(6).getTime());
    assert.equal(ts!.outbound.vessel_id, V2);
    assert.equal(ts!.outbound.voyage_number, '2W');
    assert.equal(pod!.inbound.vessel_id, V2);
    assert.equal(pod!.inbound.estimated?.getTime(), at(34).getTime());
    assert.equal(pod!.inbound.scac, 'TEST');
    assert.deepEqual(
      j.legs.map((l) => [l.from.locode, l.to.locode, l.mode, l.vessel_id]),
      [
        ['CNSGH', 'SGSIN', 'vessel', V1],
        ['SGSIN', 'NLRTM', 'vessel', V2],
      ],
    );
  });

  test('an inland destination reached by rail is a DEST call with a rail leg', () => {
    const j = buildJourney(
      shipment({ transshipment_locodes: [], port_of_discharge_locode: 'USLAX', destination_locode: 'USCHI' }),
      { ...CONTAINER, ind_eta_at: at(20) },
      [ev('rail_departed', 16, 'USLAX', null, null)],
    );
    assert.deepEqual(
      j.calls.map((c) => c.label),
      ['POL', 'POD', 'DEST'],
    );
    assert.equal(j.legs[1]!.mode, 'rail');
    assert.equal(j.calls[2]!.inbound.estimated?.getTime(), at(20).getTime());
  });

  test('a leg with no arrival time gets one shared out by distance', () => {
    const j = buildJourney(shipment(), CONTAINER, TS_EVENTS.slice(0, 2));
    const [first, second] = legTimings(j, routeOf);
    // Departed day 0, POD due day 34: Singapore gets its share of the 34 days by sea distance.
    const share = first!.route!.distanceNm / (first!.route!.distanceNm + second!.route!.distanceNm);
    assert.equal(first!.arrival!.getTime(), at(34 * share).getTime());
    assert.equal(first!.arrivalActual, false);
    assert.equal(second!.departure!.getTime(), first!.arrival!.getTime());
  });
});

describe('vessel position estimates', () => {
  const j = buildJourney(shipment(), CONTAINER, TS_EVENTS);
  const timings = legTimings(j, routeOf);

  test('the leg at sea is the one departed and not arrived', () => {
    assert.equal(legAtSea(timings, at(5)), null, 'the first leg has arrived: not at sea on it');
    assert.equal(legAtSea(timings, at(12))?.leg.index, 1);
  });

  test('constant speed along the route between departure and ETA', () => {
    const leg = timings[1]!;
    const half = estimateAtSea(leg, at(22))!; // day 10 -> day 34
    assert.ok(Math.abs(half.sailedNm - leg.route!.distanceNm / 2) < 0.01);
    const start = estimateAtSea(leg, at(10))!;
    assert.deepEqual(start.point, leg.route!.coordinates[0]);
    assert.ok(half.speedKnots! > 10 && half.speedKnots! < 20, `${half.speedKnots} kn`);
  });

  test('an overdue vessel is held short of the port at default speed', () => {
    const late = estimateAtSea(timings[1]!, at(60))!;
    assert.ok(late.sailedNm <= timings[1]!.route!.distanceNm * 0.95 + 1e-6);
    assert.equal(late.speedKnots, DEFAULT_KNOTS);
    assert.ok(late.arrival > at(60));
  });

  test('positions: fixed spacing, ordered, ending at the port at the ETA', () => {
    const route = timings[1]!.route!;
    const ps = positionsBetween(route, { departedAt: at(10), arrivesAt: at(34) }, at(22), 60_000, 2000);
    assert.ok(ps.length <= 2000);
    assert.equal(ps.at(-1)!.at.getTime(), at(34).getTime());
    assert.deepEqual(ps.at(-1)!.point, route.coordinates.at(-1));
    const step = ps[1]!.at.getTime() - ps[0]!.at.getTime();
    assert.ok(step >= 60_000 && step % 1 === 0);
    for (let i = 1; i < ps.length - 1; i++) assert.equal(ps[i]!.at.getTime() - ps[i - 1]!.at.getTime(), step);
    const short = positionsBetween(
      route,
      { departedAt: at(10), arrivesAt: at(10 + 1 / 24) },
      at(10),
      60_000,
      2000,
    );
    assert.equal(short.length, 61, 'an hour at one-minute spacing');
  });
});

describe('map GeoJSON', () => {
  const reference = referenceChecks();
  test('the validator accepts the reference example and rejects a broken one', {
    skip: REFERENCE_SKIP,
  }, () => {
    assert.deepEqual(mapErrors(referenceMapExample()), []);
    const bad = referenceMapExample();
    bad.features[0].geometry.coordinates = [1];
    assert.notDeepEqual(mapErrors(bad), []);
  });

  test('under way: ports, past track, current vessel, partial leg, valid against the reference', () => {
    const j = buildJourney(shipment(), CONTAINER, TS_EVENTS);
    const now = at(20);
    const map = buildMapGeoJson({
      journey: j,
      timings: legTimings(j, routeOf),
      now,
      updatedAt: now,
      vessels: VESSELS,
    });
    reference.map(map, 'under way');
    assert.deepEqual(
      map.features.map((f) => f.properties.feature_type),
      [
        'port',
        'past_vessel_locations',
        'port',
        'past_vessel_locations',
        'current_vessel',
        'estimated_partial_leg',
        'port',
      ],
    );
    const [pol, past1, ts, past2, vessel, partial, pod] = map.features as any[];
    assert.deepEqual(
      [pol, ts, pod].map((f) => f.properties.label),
      ['POL', 'TS1', 'POD'],
    );
    assert.equal(pod.properties.ports_total, 3);
    assert.equal(pod.properties.location_id, portByLocode('NLRTM')!.id);
    assert.equal(pol.properties.country, 'China');
    // The completed leg runs port to port; the current one ends where the vessel is, and the
    // partial leg starts there and ends at the next port.
    assert.deepEqual(past1.geometry.coordinates[0], pol.geometry.coordinates);
    assert.deepEqual(past1.geometry.coordinates.at(-1), ts.geometry.coordinates);
    assert.deepEqual(past2.geometry.coordinates.at(-1), vessel.geometry.coordinates);
    assert.deepEqual(partial.geometry.coordinates[0], vessel.geometry.coordinates);
    assert.deepEqual(partial.geometry.coordinates.at(-1), pod.geometry.coordinates);
    assert.equal(vessel.properties.vessel_name, 'TEST TWO');
    assert.equal(vessel.properties.departure_port_label, 'TS1');
    assert.equal(vessel.properties.arrival_port_label, 'POD');
    assert.equal(partial.properties.next_port_id, pod.properties.location_id);
    for (const f of map.features) {
      if (f.geometry.type === 'LineString')
        assert.equal(f.properties.point_count, f.geometry.coordinates.length);
      const coords: LonLat[] =
        f.geometry.type === 'Point' ? [f.geometry.coordinates] : f.geometry.coordinates;
      for (const [lon, lat] of coords) assert.ok(Math.abs(lon) <= 180 && Math.abs(lat) <= 90);
      for (let i = 1; i < coords.length; i++) assert.ok(haversineNm(coords[i - 1]!, coords[i]!) < 90);
    }
  });

  test('before departure: every leg is an estimated full leg, no vessel', () => {
    const j = buildJourney(shipment({ pol_atd_at: null, pol_etd_at: at(3) }), CONTAINER, []);
    const map = buildMapGeoJson({
      journey: j,
      timings: legTimings(j, routeOf),
      now: at(0),
      updatedAt: null,
      vessels: VESSELS,
    });
    reference.map(map, 'before departure');
    assert.deepEqual(
      map.features.map((f) => f.properties.feature_type),
      ['port', 'estimated_full_legs', 'port', 'estimated_full_legs', 'port'],
    );
  });

  test('a rail leg draws nothing between its ports', () => {
    const j = buildJourney(
      shipment({
        transshipment_locodes: [],
        port_of_discharge_locode: 'USLAX',
        destination_locode: 'USCHI',
        pod_ata_at: at(14),
      }),
      CONTAINER,
      [
        ev('vessel_departed', 0, 'CNSGH', V1, '1E'),
        ev('vessel_arrived', 14, 'USLAX', V1, '1E'),
        ev('rail_departed', 16, 'USLAX', null, null),
      ],
    );
    const map = buildMapGeoJson({
      journey: j,
      timings: legTimings(j, routeOf),
      now: at(17),
      updatedAt: null,
      vessels: VESSELS,
    });
    reference.map(map, 'a rail leg');
    assert.deepEqual(
      map.features.map((f) => f.properties.feature_type),
      ['port', 'past_vessel_locations', 'port', 'port'],
    );
  });

  reference.declareTest();
});
