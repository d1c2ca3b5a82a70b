// Every attribute and relationship of the reference's shipment, container and transport_event
// schemas (openapi.json, test/helpers/reference.ts; skipped, saying so, where it is absent) is served by ours;
// the extras are the documented ones.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ContainerSchema, TransportEventSchema } from '../../src/shipments/containers/serializer.ts';
import { ShipmentSchema } from '../../src/shipments/serializer.ts';
import { REFERENCE_OPENAPI } from '../helpers/reference.ts';

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
    // Served by the live service though absent from its document (docs/api-notes.md, "Live over document").
    'rail_last_tracking_request_at',
    'ind_facility_holds',
    'ind_facility_fees',
    'ssl_lfd',
    // Per-container stop, an extension (docs/api-notes.md, "Extensions").
    'tracking_stopped_at',
    'tracking_stopped_reason',
  ],
  // value: served by the live service though absent from its document (docs/api-notes.md).
  transport_event: ['invalidated_at', 'value'],
};

describe('attributes against the reference document', { skip: REFERENCE_OPENAPI.skip }, () => {
  // Some Node versions build a skipped suite's body: read the document only when it is there.
  const ref = REFERENCE_OPENAPI.skip
    ? {}
    : JSON.parse(readFileSync(REFERENCE_OPENAPI.url, 'utf8')).components.schemas;
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
