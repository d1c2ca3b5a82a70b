import assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeOf } from '../../src/mcp/route.ts';

// get_container_route reads the route body (GET /v2/containers/{id}/route); the journey itself is
// tested in test/routing. Here: roles and labels from the shipment's plan, legs from the calls.

const port = (locode: string) => ({
  type: 'port',
  id: `p-${locode}`,
  attributes: { code: locode, name: `${locode} port`, latitude: 1, longitude: 2 },
});
const call = (locode: string, a: Record<string, unknown>, vessel: string | null) => ({
  type: 'route_location',
  id: `rl-${locode}`,
  attributes: {
    inbound_mode: null,
    outbound_mode: null,
    inbound_eta_at: null,
    inbound_ata_at: null,
    outbound_etd_at: null,
    outbound_atd_at: null,
    outbound_voyage_number: null,
    ...a,
  },
  relationships: {
    location: { data: { type: 'port', id: `p-${locode}` } },
    outbound_vessel: { data: vessel ? { type: 'vessel', id: vessel } : null },
  },
});
const codes = ['KRPUS', 'SGSIN', 'DEHAM', 'DEDUI'];
const body = {
  data: {
    relationships: {
      route_locations: { data: codes.map((c) => ({ type: 'route_location', id: `rl-${c}` })) },
    },
  },
  included: [
    call('KRPUS', { outbound_mode: 'vessel', outbound_atd_at: 'T1', outbound_voyage_number: 'V1' }, 'v1'),
    call('SGSIN', { inbound_ata_at: 'T2', outbound_mode: 'vessel' }, 'v2'),
    call('DEHAM', { inbound_eta_at: 'T3', outbound_mode: 'rail' }, null),
    call('DEDUI', {}, null),
    ...codes.map(port),
    { type: 'vessel', id: 'v1', attributes: { name: 'FEEDER', imo: '9000001' } },
    { type: 'vessel', id: 'v2', attributes: { name: 'MOTHER', imo: '9000002' } },
  ],
};
const shipment = {
  port_of_lading_locode: 'KRPUS',
  port_of_discharge_locode: 'DEHAM',
  destination_locode: 'DEDUI',
};

test('port calls in the route order, with roles and labels from the plan; legs between them', () => {
  const { ports, legs } = routeOf(body, shipment);
  assert.deepEqual(
    ports.map((p) => `${p.sequence} ${p.label} ${p.role} ${p.locode} ${p.name}`),
    [
      '1 POL port_of_lading KRPUS KRPUS port',
      '2 TS1 transshipment SGSIN SGSIN port',
      '3 POD port_of_discharge DEHAM DEHAM port',
      '4 DEST destination DEDUI DEDUI port',
    ],
  );
  assert.equal(ports[1]!.ata_at, 'T2');
  assert.deepEqual(
    legs.map((l) => `${l.from}>${l.to} ${l.mode} ${l.vessel_name} ${l.voyage_number}`),
    ['KRPUS>SGSIN vessel FEEDER V1', 'SGSIN>DEHAM vessel MOTHER null', 'DEHAM>DEDUI rail null null'],
  );
  assert.equal(legs[0]!.atd_at, 'T1');
  assert.equal(legs[1]!.eta_at, 'T3');
});

test('no route locations: no ports, no legs', () => {
  assert.deepEqual(routeOf({ data: { relationships: {} } }, shipment), { ports: [], legs: [] });
});
