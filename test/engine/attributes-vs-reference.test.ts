// Every attribute and relationship of the reference's shipment, container and transport_event
// schemas (../shared/reference/openapi.json; skipped where that copy is absent) is served by ours;
// the extras are the documented ones.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ContainerSchema, TransportEventSchema } from '../../src/shipments/containers/serializer.ts';
import { ShipmentSchema } from '../../src/shipments/serializer.ts';

const REFERENCE = new URL('../../../shared/reference/openapi.json', import.meta.url);
type Obj = { properties: Record<string, { properties?: Record<string, unknown> }> };
const keys = (s: Obj, part: 'attributes' | 'relationships') =>
  Object.keys(s.properties[part]?.properties ?? {});

const EXTRAS: Record<string, string[]> = {
  shipment: ['updated_at', 'transshipment_locodes', 'pol_original_etd_at', 'destination_original_eta_at'],
  container: [
    'iso_equipment_code',
    'updated_at',
    'empty_out_at',
    'pol_full_in_at',
    'pol_vessel_loaded_at',
    'pol_vessel_departed_at',
    'delivered_at',
  ],
  transport_event: ['invalidated_at'],
};

describe('attributes against the reference document', { skip: !existsSync(REFERENCE) }, () => {
  const ref = existsSync(REFERENCE) ? JSON.parse(readFileSync(REFERENCE, 'utf8')).components.schemas : {};
  const ours: Record<string, Obj> = {
    shipment: ShipmentSchema as unknown as Obj,
    container: ContainerSchema as unknown as Obj,
    transport_event: TransportEventSchema as unknown as Obj,
  };
  for (const [name, schema] of Object.entries(ours)) {
    it(`${name}: every reference attribute and relationship, plus only the documented extras`, () => {
      for (const part of ['attributes', 'relationships'] as const) {
        const mine = keys(schema, part);
        const theirs = keys(ref[name], part);
        assert.deepEqual(
          theirs.filter((k) => !mine.includes(k)),
          [],
          `${name} ${part} missing`,
        );
        if (part === 'attributes')
          assert.deepEqual(mine.filter((k) => !theirs.includes(k)).sort(), [...EXTRAS[name]!].sort());
      }
    });
  }
});
