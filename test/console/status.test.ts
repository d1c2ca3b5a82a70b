import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error: idem.
import { routeFromPorts, topologyToPath } from '../../src/console/client/map.js';
// @ts-expect-error: the console's client modules are plain JavaScript served to the browser.
import { shipmentStatus } from '../../src/console/client/status.js';

const shipment = (a: Record<string, unknown> = {}) => ({
  attributes: { line_tracking_stopped_at: null, ...a },
});
const box = (a: Record<string, unknown> = {}) => ({ attributes: { current_status: 'new', ...a } });
const status = (s: object, cs: object[]) => shipmentStatus(s, cs).label;

test('the Status column rule, first match wins (docs/console.md)', () => {
  assert.equal(status(shipment(), [box()]), 'Awaiting departure');
  assert.equal(status(shipment(), []), 'Awaiting departure');
  assert.equal(status(shipment({ pol_atd_at: 'x' }), [box()]), 'In transit');
  assert.equal(status(shipment(), [box({ current_status: 'on_ship' })]), 'In transit');
  assert.equal(status(shipment({ pol_atd_at: 'x', pod_ata_at: 'y' }), [box()]), 'Arrived');
  assert.equal(status(shipment(), [box({ pod_discharged_at: 'x' }), box()]), 'Arrived');
  assert.equal(
    status(shipment({ pod_ata_at: 'y' }), [box({ pod_full_out_at: 'z' }), box()]),
    'Arrived',
    'one box still there',
  );
  assert.equal(
    status(shipment({ pod_ata_at: 'y' }), [
      box({ pod_full_out_at: 'z' }),
      box({ current_status: 'delivered' }),
    ]),
    'Picked up',
  );
  assert.equal(
    status(shipment({ line_tracking_stopped_at: 't' }), [box({ pod_full_out_at: 'z' })]),
    'Tracking stopped',
  );
  assert.equal(
    status(shipment({ line_tracking_stopped_at: 't' }), [box({ empty_terminated_at: 'e' })]),
    'Empty returned',
  );
  assert.equal(
    status(shipment(), [box({ empty_terminated_at: 'e' }), box({ pod_full_out_at: 'z' })]),
    'Picked up',
  );
});

test('map: TopoJSON rings become a filled path and a coastline that never crosses the antimeridian', () => {
  const topology = {
    type: 'Topology',
    transform: { scale: [1, 1], translate: [0, 0] },
    // One ring cut at the antimeridian: 170 -> 180 | -180 -> -170 and back.
    arcs: [
      [
        [170, 60],
        [10, 0],
        [-360, 0],
        [10, 0],
        [0, 5],
        [-10, 0],
        [360, 0],
        [-10, 0],
        [0, -5],
      ],
    ],
    objects: { land: { type: 'GeometryCollection', geometries: [{ type: 'Polygon', arcs: [[0]] }] } },
  };
  const { fill, coast } = topologyToPath(topology);
  assert.match(fill, /^M170\.00 -60\.00L180\.00 -60\.00L-180\.00 -60\.00/);
  assert.ok(fill.endsWith('Z'));
  assert.equal((coast.match(/M/g) ?? []).length, 3, 'the coastline is lifted at both crossings');
});

test('map fallback: visited ports joined, expected ones dashed, duplicates and unplaced ports dropped', () => {
  const port = (locode: string, lon: number | null, expected = false) => ({
    name: locode,
    locode,
    lat: 10,
    lon,
    expected,
  });
  const route = routeFromPorts(
    [port('CNSGH', 121), port('CNSGH', 121), port('SGSIN', 103)],
    [port('XXNOW', null, true), port('NLRTM', 4, true)],
  );
  assert.deepEqual(
    route.ports.map((p: { locode: string }) => p.locode),
    ['CNSGH', 'SGSIN', 'NLRTM'],
  );
  assert.deepEqual(route.lines, [
    {
      coords: [
        [121, 10],
        [103, 10],
      ],
      estimated: false,
    },
    {
      coords: [
        [103, 10],
        [4, 10],
      ],
      estimated: true,
    },
  ]);
});
