// Property-based tests: normalization depends only on the set of distinct events (order and
// repetition never matter), its counts account for what was read and skipped, and no payload
// built from the DCSA schema's field names, however wrong its values, makes parsing or
// normalization throw. The payloads go through the DCSA adapter's snapshot builder, as in
// production. Every arbitrary is seeded (test/helpers/fast-check.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventIdOf, parseDcsaEvent } from '../../src/carriers/dcsa/parse.ts';
import type { NumberType } from '../../src/carriers/types.ts';
import type { NormalizedSnapshot } from '../../src/engine/types.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';
import fc from '../helpers/fast-check.ts';
import { FIXTURES, loadFixture, normalizeDcsaUnchecked as normalizeUnchecked } from './fixtures.ts';

const ctxFor = (numberType: NumberType, number: string) => ({ numberType, number, zoneOf: zoneOfLocode });

/** A shuffled copy of `items` with some of them repeated (a deep copy, as a re-poll would give). */
const shuffledWithRepeats = <T>(items: T[]) =>
  fc
    .tuple(
      fc.array(fc.double({ noNaN: true }), { minLength: items.length, maxLength: items.length }),
      fc.array(fc.tuple(fc.nat({ max: Math.max(0, items.length - 1) }), fc.double({ noNaN: true })), {
        maxLength: items.length,
      }),
    )
    .map(([order, repeats]) => {
      const all = [...items, ...(items.length > 0 ? repeats.map(([i]) => structuredClone(items[i]!)) : [])];
      const keys = [...order, ...repeats.map(([, key]) => key)];
      return all
        .map((x, i) => [keys[i]!, x] as const)
        .sort((a, b) => a[0] - b[0])
        .map(([, x]) => x);
    });

function checkInvariants(snap: NormalizedSnapshot, events: unknown[]) {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  for (const c of snap.containers) {
    const keys = c.transport_events.map((e) => e.key);
    assert.equal(new Set(keys).size, keys.length, 'keys are unique within a container');
    for (const e of c.transport_events) assert.ok(e.timestamp === null || iso.test(e.timestamp));
    for (const e of c.estimated_events) assert.match(e.estimated_time, iso);
  }
  // The counts account for the payload: distinct readable events, distinct unreadable ones.
  const readable = events.filter((e) => parseDcsaEvent(e) !== null);
  const ids = new Set(readable.map(eventIdOf));
  assert.equal(snap.parsed_event_count === 0, readable.length === 0, 'parsed iff something was readable');
  assert.ok(snap.parsed_event_count <= readable.length, 'parsed at most once per readable event');
  if (!ids.has(null)) assert.equal(snap.parsed_event_count, ids.size, 'with ids, one per distinct id');
  const unreadable = events.length - readable.length;
  assert.equal(snap.skipped_event_count === 0, unreadable === 0, 'skipped iff something was unreadable');
  assert.ok(snap.skipped_event_count <= unreadable, 'skipped at most once per unreadable event');
  if (readable.length === 0) assert.deepEqual(snap.containers, [], 'nothing readable, no container');
  // Provenance points at events that were read.
  for (const c of snap.containers)
    for (const e of c.transport_events)
      for (const id of e.source_event_ids) assert.ok(ids.has(id), `source ${id} was read`);
}

describe('normalize properties', () => {
  for (const [name, numberType, number] of FIXTURES) {
    it(`${name}: any subset, shuffled and repeated, normalizes like the subset itself`, () => {
      const events = loadFixture(name);
      const ctx = ctxFor(numberType, number);
      fc.assert(
        fc.property(
          fc.subarray(events).chain((subset) => fc.tuple(fc.constant(subset), shuffledWithRepeats(subset))),
          ([subset, mixed]) => {
            const expected = normalizeUnchecked(subset, ctx);
            assert.deepEqual(normalizeUnchecked(mixed, ctx), expected);
            checkInvariants(expected, subset);
          },
        ),
        { numRuns: 60 },
      );
    });
  }

  it('all fixtures mixed together: order and repetition never matter, and normalizing is idempotent', () => {
    const events = FIXTURES.flatMap(([name]) => loadFixture(name));
    const ctx = ctxFor('bill_of_lading', 'X');
    const expected = normalizeUnchecked(events, ctx);
    assert.deepEqual(normalizeUnchecked([...events, ...events], ctx), expected);
    fc.assert(
      fc.property(shuffledWithRepeats(events), (mixed) => {
        assert.deepEqual(normalizeUnchecked(mixed, ctx), expected);
      }),
      { numRuns: 30 },
    );
  });
});

// --- Fuzzing from the schema's field names -----------------------------------------------------

const huge = 'Z'.repeat(50_000);
const wrong = fc.oneof(
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 12 }),
  fc.constant(huge),
  fc.constant('2024-02-30T25:61:00+99:00'),
  fc.array(fc.anything({ maxDepth: 1 }), { maxLength: 3 }),
  fc.object({ maxDepth: 1 }),
);
const oneOfOrWrong = (...values: unknown[]) => fc.oneof(fc.constantFrom(...values), wrong);
const dateish = fc.oneof(
  fc
    .date({ min: new Date('2023-01-01'), max: new Date('2025-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc
    .date({ min: new Date('2023-01-01'), max: new Date('2025-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 19)),
  fc.constantFrom('2024-05-01T10:00:00+08:00', '2024-05-01', '2024-05-01 10:00', '2024-05-01T10:00:00-0700'),
  wrong,
);
const locode = oneOfOrWrong('CNYTN', 'NLRTM', 'USLAX', 'USCHI', 'SGSIN', 'DEDUI', 'MAPTM', 'nl rtm', 'XXXXX');
const location = fc.record(
  {
    locationName: wrong,
    UNLocationCode: locode,
    facilityCode: oneOfOrWrong('YICT', 'EMX', 'APMT', ''),
    facilityCodeListProvider: oneOfOrWrong('SMDG', 'BIC'),
    facilityTypeCode: oneOfOrWrong('INTE', 'RAMP', 'POTE', 'BRTH', 'DEPO'),
    latitude: wrong,
    address: wrong,
  },
  { requiredKeys: [] },
);
const vessel = fc.record(
  {
    vesselIMONumber: oneOfOrWrong('9501368', 9778791, 'IMO9806079', '123'),
    vesselName: oneOfOrWrong('Maersk Essen', 'ONE Innovation', ''),
    vesselFlag: wrong,
  },
  { requiredKeys: [] },
);
const transportCall = fc.record(
  {
    transportCallID: oneOfOrWrong('TC1', 'TC2', 'TC3', 42),
    modeOfTransport: oneOfOrWrong('VESSEL', 'BARGE', 'RAIL', 'TRUCK', 'vessel'),
    carrierServiceCode: wrong,
    exportVoyageNumber: oneOfOrWrong('001W', '002E'),
    importVoyageNumber: oneOfOrWrong('001W', '002E'),
    carrierVoyageNumber: oneOfOrWrong('001W'),
    transportCallSequenceNumber: oneOfOrWrong(1, 2, '3'),
    UNLocationCode: locode,
    facilityCode: oneOfOrWrong('YICT', 'EMX'),
    facilityCodeListProvider: oneOfOrWrong('SMDG', 'BIC'),
    facilityTypeCode: oneOfOrWrong('POTE', 'RAMP', 'BRTH'),
    location: fc.oneof(location, wrong),
    vessel: fc.oneof(vessel, wrong),
  },
  { requiredKeys: [] },
);
const fuzzedEvent = fc.record(
  {
    eventID: oneOfOrWrong('e1', 'e2', 'e3', 'e4', 'e5', 'e6'),
    eventId: oneOfOrWrong('e1', 'e7'),
    eventType: oneOfOrWrong('TRANSPORT', 'EQUIPMENT', 'SHIPMENT', 'IOT'),
    eventClassifierCode: oneOfOrWrong('ACT', 'EST', 'PLN', 'REQ'),
    eventDateTime: dateish,
    eventCreatedDateTime: dateish,
    eventUpdatedDateTime: dateish,
    transportEventTypeCode: oneOfOrWrong('ARRI', 'DEPA'),
    equipmentEventTypeCode: oneOfOrWrong('LOAD', 'DISC', 'GTIN', 'GTOT', 'DROP', 'AVPU', 'STUF', 'CUSR'),
    shipmentEventTypeCode: oneOfOrWrong('CONF', 'CANC', 'REJE', 'ISSU'),
    eventTypeCode: oneOfOrWrong('ARRI', 'LOAD', 'RECE'),
    emptyIndicatorCode: oneOfOrWrong('EMPTY', 'LADEN'),
    equipmentReference: oneOfOrWrong('MSKU7000013', 'CMAU1000015', 'mscu 123456-6'),
    ISOEquipmentCode: oneOfOrWrong('45G1', '22GP', 'L5R1', '4510', 'ZZ'),
    documentTypeCode: oneOfOrWrong('BKG', 'TRD', 'CBR'),
    documentID: wrong,
    transportCall: fc.oneof(transportCall, wrong),
    eventLocation: fc.oneof(location, wrong),
    seals: fc.oneof(
      fc.array(fc.record({ sealNumber: wrong, sealType: wrong }, { requiredKeys: [] }), { maxLength: 2 }),
      wrong,
    ),
    references: fc.oneof(
      fc.array(fc.record({ referenceType: oneOfOrWrong('EQ', 'FF'), referenceValue: wrong }), {
        maxLength: 2,
      }),
      wrong,
    ),
    documentReferences: fc.oneof(
      fc.array(
        fc.record({ documentReferenceType: oneOfOrWrong('BKG', 'TRD'), documentReferenceValue: wrong }),
        {
          maxLength: 2,
        },
      ),
      wrong,
    ),
  },
  { requiredKeys: [] },
);
const payload = fc.array(
  fc.oneof({ weight: 8, arbitrary: fuzzedEvent }, { weight: 1, arbitrary: fc.anything() }),
  {
    maxLength: 40,
  },
);

describe('fuzzing from the DCSA schema', () => {
  it('parseDcsaEvent never throws', () => {
    fc.assert(
      fc.property(fc.oneof(fuzzedEvent, fc.anything()), (e) => {
        parseDcsaEvent(e);
      }),
      { numRuns: 1500 },
    );
  });

  it('normalize never throws (without its safety net) and keeps its invariants', () => {
    const types: NumberType[] = ['bill_of_lading', 'booking_number', 'container'];
    fc.assert(
      fc.property(payload, fc.constantFrom(...types), (events, numberType) => {
        checkInvariants(normalizeUnchecked(events, ctxFor(numberType, 'MSKU7000013')), events);
      }),
      { numRuns: 300 },
    );
  });

  it('fuzzed payloads too normalize identically whatever their order and repetitions', () => {
    fc.assert(
      fc.property(
        payload.chain((events) => fc.tuple(fc.constant(events), shuffledWithRepeats(events))),
        ([events, mixed]) => {
          const ctx = ctxFor('container', 'MSKU7000013');
          assert.deepEqual(normalizeUnchecked(mixed, ctx), normalizeUnchecked(events, ctx));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a huge page normalizes in linear-ish time', () => {
    const base = loadFixture('transshipment');
    const many = Array.from({ length: 400 }, (_, i) =>
      base.map((e) => {
        const copy = structuredClone(e) as Record<string, unknown>;
        copy.eventID = `${copy.eventID}-${i}`;
        if (typeof copy.equipmentReference === 'string')
          copy.equipmentReference = `CMAU${String(i).padStart(7, '0')}`;
        return copy;
      }),
    ).flat();
    const started = performance.now();
    const snap = normalizeUnchecked(many, ctxFor('bill_of_lading', 'CMDUKRP2405001'));
    const ms = performance.now() - started;
    assert.equal(snap.containers.length, 400);
    assert.ok(ms < 5000, `took ${ms} ms for ${many.length} events`);
  });
});
