import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RawEventRow } from '../../src/shipments/containers/queries.ts';
import { RAW_EVENT_NAMES, serializeRawEvent } from '../../src/shipments/containers/serializer.ts';
import { REFERENCE_OPENAPI } from '../helpers/reference.ts';
import { loadReference } from './reference-schema.ts';

// Issue 13 (6): a raw event's `event` is one of the reference document's names or null, whatever
// name our normalizer gave the transport event at the same time and place; `location_name` is
// null when the carrier names no place (docs/api-notes.md: the document's intent).

const AT = '2026-03-01T10:00:00.000Z';
const row = (over: Partial<RawEventRow> = {}): RawEventRow => ({
  id: 'r1',
  shipment_id: 's1',
  carrier_event_id: 'c1',
  equipment_reference: 'MSCU1234566',
  event_type: 'TRANSPORT',
  event_code: 'ARRI',
  classifier: 'ACT',
  event_at: new Date(AT),
  event_created_at: new Date(AT),
  location_locode: null,
  vessel_name: null,
  vessel_imo: null,
  voyage_number: null,
  payload: {},
  created_at: new Date(AT),
  ...over,
});
const ctx = (event: string, location_locode: string | null = null) => ({
  offset: 0,
  transportEvents: [{ event, timestamp: new Date(AT), location_locode }],
  vesselIdOf: () => null,
});
const attrs = (r: RawEventRow, c: ReturnType<typeof ctx>) =>
  serializeRawEvent(r, 0, c).attributes as Record<string, unknown>;

describe('raw event attributes against the reference enum', () => {
  test("our names are the document's names", { skip: REFERENCE_OPENAPI.skip }, () => {
    const { doc } = loadReference();
    const documented = doc.components.schemas.raw_event.properties.attributes.properties.event.enum;
    assert.deepEqual([...RAW_EVENT_NAMES].sort(), documented.filter((x: unknown) => x !== null).sort());
  });

  test('a name outside the enum is never sent: null, or the gate code when it is unambiguous', () => {
    assert.equal(attrs(row(), ctx('container.transport.vessel_arrived')).event, 'vessel_arrived');
    // vessel_berthed is one of our transport events, not a raw event name of the document.
    assert.equal(attrs(row(), ctx('container.transport.vessel_berthed')).event, null);
    // The code carries the empty indicator (src/carriers/dcsa/snapshot.ts): GTOT EMPTY is empty_out.
    const gate = row({ event_type: 'EQUIPMENT', event_code: 'GTOT EMPTY' });
    assert.equal(attrs(gate, ctx('container.transport.vessel_berthed')).event, 'empty_out');
    assert.equal(attrs(row({ event_type: 'EQUIPMENT', event_code: 'LOAD LADEN' }), ctx('x')).event, null);
    assert.equal(attrs(row({ classifier: 'EST' }), ctx('container.transport.vessel_arrived')).event, null);
  });

  test('location_name: the carrier name of the place, the port name, else null', () => {
    assert.equal(attrs(row(), ctx('x')).location_name, null);
    assert.equal(
      attrs(row({ payload: { eventLocation: { locationName: ' Quay 7 ' } } }), ctx('x')).location_name,
      'Quay 7',
    );
    const named = attrs(row({ location_locode: 'NLRTM' }), ctx('x')).location_name;
    assert.equal(typeof named, 'string');
    assert.ok((named as string).length > 0);
  });
});
