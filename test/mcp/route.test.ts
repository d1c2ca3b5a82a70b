import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildRoute, type RouteEvent } from '../../src/mcp/route.ts';

const ev = (
  event: string,
  timestamp: string,
  locode: string,
  vessel: string | null = null,
  voyage: string | null = null,
): RouteEvent => ({
  event: `container.transport.${event}`,
  timestamp,
  locode,
  placeName: `${locode} port`,
  latitude: 1,
  longitude: 2,
  vesselName: vessel,
  vesselImo: null,
  voyage,
});

const shipment = {
  port_of_lading_locode: 'KRPUS',
  port_of_lading_name: 'Busan',
  port_of_discharge_locode: 'DEHAM',
  port_of_discharge_name: 'Hamburg',
  destination_locode: 'DEDUI',
  destination_name: 'Duisburg',
  transshipment_locodes: ['SGSIN'],
  pol_etd_at: '2026-01-01T00:00:00.000Z',
  pod_eta_at: '2026-02-10T00:00:00.000Z',
  pod_vessel_name: 'MOTHER',
  pod_voyage_number: 'V2',
};

test('a journey in progress: ports in order with roles, legs with vessels, planned ports still ahead', () => {
  const { ports, legs } = buildRoute(shipment, [
    ev('vessel_loaded', '2026-01-01T10:00:00Z', 'KRPUS', 'FEEDER', 'V1'),
    ev('vessel_departed', '2026-01-02T00:00:00Z', 'KRPUS', 'FEEDER', 'V1'),
    ev('transshipment_arrived', '2026-01-10T00:00:00Z', 'SGSIN', 'FEEDER', 'V1'),
    ev('transshipment_departed', '2026-01-12T00:00:00Z', 'SGSIN', 'MOTHER', 'V2'),
  ]);
  assert.deepEqual(
    ports.map((p) => [p.sequence, p.label, p.locode, p.role]),
    [
      [1, 'POL', 'KRPUS', 'port_of_lading'],
      [2, 'TS1', 'SGSIN', 'transshipment'],
      [3, 'POD', 'DEHAM', 'port_of_discharge'],
      [4, 'DEST', 'DEDUI', 'destination'],
    ],
  );
  assert.equal(ports[0]!.atd_at, '2026-01-02T00:00:00Z');
  assert.equal(ports[0]!.etd_at, '2026-01-01T00:00:00.000Z');
  assert.equal(ports[1]!.ata_at, '2026-01-10T00:00:00Z');
  assert.equal(ports[2]!.eta_at, '2026-02-10T00:00:00.000Z');
  assert.equal(ports[2]!.name, 'Hamburg', 'named from the shipment when no event names it');
  assert.deepEqual(
    legs.map((l) => [l.from, l.to, l.vessel_name, l.voyage_number]),
    [
      ['KRPUS', 'SGSIN', 'FEEDER', 'V1'],
      ['SGSIN', 'DEHAM', 'MOTHER', 'V2'],
      ['DEHAM', 'DEDUI', null, null],
    ],
  );
  assert.equal(legs[1]!.eta_at, '2026-02-10T00:00:00.000Z');
});

test('an unplanned call the events name is placed where it happened', () => {
  const { ports } = buildRoute({ ...shipment, transshipment_locodes: [] }, [
    ev('vessel_departed', '2026-01-02T00:00:00Z', 'KRPUS'),
    ev('transshipment_arrived', '2026-01-05T00:00:00Z', 'CNSHA'),
    ev('transshipment_departed', '2026-01-06T00:00:00Z', 'CNSHA'),
  ]);
  assert.deepEqual(
    ports.map((p) => [p.locode, p.label]),
    [
      ['KRPUS', 'POL'],
      ['CNSHA', 'CALL'],
      ['DEHAM', 'POD'],
      ['DEDUI', 'DEST'],
    ],
  );
});

test('no events yet: the planned route only', () => {
  const { ports, legs } = buildRoute(shipment, []);
  assert.deepEqual(
    ports.map((p) => p.locode),
    ['KRPUS', 'SGSIN', 'DEHAM', 'DEDUI'],
  );
  assert.equal(legs.length, 3);
  assert.equal(legs[1]!.vessel_name, 'MOTHER', 'the last sea leg falls back to the shipment vessel');
});
