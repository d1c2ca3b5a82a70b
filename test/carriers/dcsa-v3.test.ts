// DCSA T&T 3.0.0 adapter: DCSA's own example messages (test/fixtures/dcsa-v3/, Apache-2.0, see
// NOTICE) through the parser and the client, generated valid 3.0.0 payloads through the parser,
// and the client's paging, not-found and change-only refreshes against a real HTTP stub.

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { staticHeadersAuth } from '../../src/carriers/auth.ts';
import { createDcsaV3Adapter } from '../../src/carriers/dcsa-v3/adapter.ts';
import { createDcsaV3Client, type DcsaV3ClientOptions } from '../../src/carriers/dcsa-v3/client.ts';
import { dcsaV3Record, dcsaV3Snapshot } from '../../src/carriers/dcsa-v3/snapshot.ts';
import { PROTOCOL_DEFAULTS } from '../../src/config/carrier-protocol.ts';
import fc from '../helpers/fast-check.ts';
import { json, type Stub, type StubHandler, startStub } from './stub-server.ts';

const DIR = new URL('../fixtures/dcsa-v3/', import.meta.url);
const example = (name: string) =>
  JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as { events: Record<string, unknown>[] };

let stub: Stub;
let handler: StubHandler = (_req, res) => json(res, 200, { events: [] });
before(async () => {
  stub = await startStub((req, res, i) => handler(req, res, i));
});
after(() => stub.close());
function serve(h: StubHandler): void {
  stub.requests.length = 0;
  handler = h;
}
const client = (options: Partial<DcsaV3ClientOptions> = {}) =>
  createDcsaV3Client({
    baseUrl: `${stub.url}/tnt/v3`,
    auth: staticHeadersAuth({ 'X-Api-Key': 'k' }),
    timeoutMs: 2000,
    ...options,
  });

describe('DCSA 3.0.0 example messages', () => {
  const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
  it('the fixtures are all there (7 example messages)', () => assert.equal(files.length, 7));

  for (const file of files) {
    it(`${file}: every event becomes a record, read as an event or a reading`, () => {
      const { events } = example(file);
      assert.ok(events.length > 0);
      for (const raw of events) {
        const r = dcsaV3Record(raw);
        assert.equal(r.raw, raw);
        assert.equal(r.carrierId, raw.eventID);
        const type = (raw.eventClassification as { eventTypeCode: string }).eventTypeCode;
        assert.equal(r.label.type, type);
        if (type === 'IOT' || type === 'REEFER') {
          assert.equal(r.event, null, 'a reading is not a transport event');
          assert.equal(r.reading?.container, 'APZU4812090');
          assert.equal(r.reading?.eventTime, raw.eventDateTime);
        } else assert.ok(r.event, `${file} ${raw.eventID} read as an event`);
      }
    });
  }

  it('tnt-300-response.json reads into the snapshot vocabulary', () => {
    const [ship, transport, equipment, iot, reefer] = dcsaV3Snapshot(
      example('tnt-300-response.json').events,
    ).records;
    assert.deepEqual(ship?.event, {
      eventId: 'evt-resp-ship-001',
      certainty: 'actual',
      eventTime: '2026-01-15T09:00:00Z',
      recordedTime: '2025-01-23T01:23:45Z',
      documentReferences: [{ type: 'TRD', value: 'HHL71800000' }],
      kind: 'shipment',
      code: 'CONF',
      documentTypeCode: 'BKG',
      documentId: 'ABC709951',
    });
    assert.ok(transport?.event?.kind === 'transport');
    assert.deepEqual(transport.event.call, {
      transportCallId: 'tc-67890-def',
      mode: 'vessel',
      serviceCode: 'SVC002',
      exportVoyage: 'V002E',
      importVoyage: 'V002N',
      sequence: 1,
      vesselImo: '7654321',
      vesselName: 'Example Vessel Beta',
      locode: 'GBSOU',
      facilityCode: null,
      facilityProvider: null,
      facilityTypeCode: 'POTE',
    });
    assert.deepEqual(transport.event.documentReferences, [
      { type: 'BKG', value: 'ABC709951' },
      { type: 'TRD', value: 'HHL71800000' },
    ]);
    assert.ok(equipment?.event?.kind === 'equipment');
    assert.equal(equipment.event.code, 'GTIN');
    assert.equal(equipment.event.fill, 'empty');
    assert.equal(equipment.event.isoEquipmentCode, '45G1');
    assert.equal(equipment.event.place?.locode, 'FRPAR');
    assert.equal(equipment.label.code, 'GTIN EMPTY');
    assert.deepEqual(iot?.label, { type: 'IOT', code: 'DETC LOC', classifier: 'ACT' });
    assert.deepEqual(reefer?.reading, {
      container: 'APZU4812090',
      eventTime: '2026-01-19T17:00:00Z',
      recordedTime: '2025-02-01T01:23:45Z',
      locode: 'BEANR',
    });
  });

  it('the paged example: both pages through the client, the cursor sent with every original filter', async () => {
    const [first, second] = [example('tnt-300-response.json'), example('tnt-300-response-nextpage.json')];
    serve((req, res) =>
      req.url.searchParams.has('cursor')
        ? json(res, 200, second, { 'API-Version': '3.0.0' })
        : json(res, 200, first, { 'API-Version': '3.0.0', 'Next-Page-Cursor': 'ExampleNextPageCursor' }),
    );
    const r = await client().fetchEvents({ filters: { equipmentReference: 'APZU4812090' } });
    assert.equal(r.kind, 'found');
    const events = (r as { events: { eventID: string }[] }).events;
    assert.equal(events.length, first.events.length + second.events.length);
    assert.deepEqual(
      events.map((e) => e.eventID),
      [...first.events, ...second.events].map((e) => e.eventID),
    );
    assert.equal(stub.requests.length, 2);
    const [a, b] = stub.requests;
    assert.equal(a?.url.pathname, '/tnt/v3/events');
    assert.equal(a?.headers['api-version'], '3.0.0');
    assert.equal(b?.url.searchParams.get('cursor'), 'ExampleNextPageCursor');
    assert.equal(b?.url.searchParams.get('equipmentReference'), 'APZU4812090');
    assert.equal(b?.url.searchParams.get('limit'), a?.url.searchParams.get('limit'));
    for (const e of dcsaV3Snapshot(events).records) assert.ok(e.event || e.reading, JSON.stringify(e.raw));
  });
});

// Valid 3.0.0 events: every field optional, codes from the standard's lists or unknown ones.
const code = (known: string[]) => fc.oneof(fc.constantFrom(...known), fc.stringMatching(/^[A-Z]{4}$/));
const text = fc.string({ maxLength: 12 });
const location = fc.record(
  {
    locationName: text,
    UNLocationCode: fc.oneof(fc.constantFrom('NLRTM', 'CNSHA', 'USNYC'), fc.stringMatching(/^[A-Z]{5}$/)),
    facilityTypeCode: code(['POTE', 'DEPO', 'INTE', 'RAMP', 'BORD']),
    facility: fc.record({ facilityCode: text, facilityCodeListProvider: fc.constantFrom('SMDG', 'BIC') }),
    geoCoordinate: fc.record({ latitude: fc.constant('51.5'), longitude: fc.constant('4.1') }),
  },
  { requiredKeys: [] },
);
const transportCall = fc.record(
  {
    transportCallReference: text,
    transportCallSequenceNumber: fc.integer(),
    modeOfTransport: fc.constantFrom('VESSEL', 'RAIL', 'TRUCK', 'BARGE', 'MULTIMODAL'),
    serviceCodeOrReference: fc.record({ carrierServiceCode: text }, { requiredKeys: [] }),
    exportVoyageNumberOrReference: fc.record({ carrierVoyageNumber: text, universalVoyageReference: text }),
    vesselTransport: fc.record({ vesselIMONumber: fc.stringMatching(/^\d{7}$/), vesselName: text }),
  },
  { requiredKeys: [] },
);
const docRef = fc.record({ typeCode: code(['BKG', 'TRD', 'SHI']), reference: text });
const v3Event = fc.record(
  {
    eventID: text,
    isRetracted: fc.boolean(),
    eventDateTime: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    eventUpdatedDateTime: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    eventLocation: location,
    eventClassification: fc.record(
      {
        eventTypeCode: code(['SHIPMENT', 'TRANSPORT', 'EQUIPMENT', 'IOT', 'REEFER']),
        eventClassifierCode: fc.constantFrom('ACT', 'EST', 'PLN'),
        shipmentEventTypeCode: code(['CONF', 'ISSU', 'CANC', 'REJE']),
        transportEventTypeCode: code(['ARRI', 'DEPA']),
        equipmentEventTypeCode: code(['LOAD', 'DISC', 'GTIN', 'GTOT', 'AVPU']),
        iotEventTypeCode: code(['DETC']),
        reeferEventTypeCode: code(['MEAS', 'ADJU']),
      },
      { requiredKeys: ['eventTypeCode'] },
    ),
    shipmentDetails: fc.record(
      { documentReference: docRef, additionalDocumentReferences: fc.array(docRef, { maxLength: 3 }) },
      { requiredKeys: [] },
    ),
    transportDetails: fc.record({ transportCall }, { requiredKeys: [] }),
    equipmentDetails: fc.record(
      {
        equipmentReference: fc.constantFrom('APZU4812090', 'MSKU7000013', 'bad'),
        ISOEquipmentCode: fc.constantFrom('22GP', '45R1'),
        emptyIndicatorCode: fc.constantFrom('EMPTY', 'LADEN'),
        seals: fc.array(fc.record({ number: text }), { maxLength: 2 }),
      },
      { requiredKeys: [] },
    ),
    iotDetails: fc.record({ iotEventCode: code(['DRC', 'DRO', 'LOC']) }),
    reeferDetails: fc.record({
      temperatureUnit: fc.constantFrom('CEL', 'FAH'),
      ambientMeasuredTemperature: fc.float(),
    }),
  },
  { requiredKeys: ['eventClassification'] },
);

describe('generated 3.0.0 payloads', () => {
  it('never throw; every event is kept as a record, whatever its codes', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(v3Event, fc.anything()), { maxLength: 8 }), (events) => {
        const { records } = dcsaV3Snapshot(events);
        assert.equal(records.length, events.length);
        records.forEach((r, i) => {
          assert.equal(r.raw, events[i]);
          if (r.event) assert.ok(['shipment', 'transport', 'equipment'].includes(r.event.kind));
          if (r.reading) assert.equal(r.event, null, 'a reading never becomes an event');
        });
      }),
      { numRuns: 300 },
    );
  });

  it('IoT and reefer events are readings; known transport codes are events', () => {
    fc.assert(
      fc.property(v3Event, (e) => {
        const r = dcsaV3Record(e);
        const type = e.eventClassification.eventTypeCode;
        if (e.isRetracted) assert.equal(r.event, null);
        else if (type === 'IOT' || type === 'REEFER') assert.ok(r.reading && r.event === null);
        else if (
          type === 'TRANSPORT' &&
          e.eventClassification.eventClassifierCode &&
          ['ARRI', 'DEPA'].includes(e.eventClassification.transportEventTypeCode ?? '')
        )
          assert.equal(r.event?.kind, 'transport');
      }),
      { numRuns: 300 },
    );
  });
});

describe('DCSA 3.0.0 client answers', () => {
  it('an empty events list, a missing list or a 404 is not found; a 400 is a refused query', async () => {
    serve((_req, res) => json(res, 200, { events: [] }));
    assert.deepEqual(await client().fetchEvents({ filters: { equipmentReference: 'X' } }), {
      kind: 'not_found',
    });
    serve((_req, res) => json(res, 200, {}));
    assert.deepEqual(await client().fetchEvents({ filters: { equipmentReference: 'X' } }), {
      kind: 'not_found',
    });
    serve((_req, res) => json(res, 404, { feedbackElements: [{ severity: 'ERROR', message: 'unknown' }] }));
    assert.deepEqual(await client().fetchEvents({ filters: { equipmentReference: 'X' } }), {
      kind: 'not_found',
    });
    serve((_req, res) =>
      json(res, 400, { feedbackElements: [{ severity: 'ERROR', message: 'No such booking' }] }),
    );
    const r = await client().fetchEvents({ filters: { carrierBookingReference: 'X' } });
    assert.equal(r.kind === 'temporary_failure' && r.reason, 'unrecognized_response');
    assert.match((r as { detail: string }).detail, /No such booking/);
    serve((_req, res) => json(res, 200, [{ eventID: 'a' }]));
    const arr = await client().fetchEvents({ filters: { equipmentReference: 'X' } });
    assert.equal(arr.kind === 'temporary_failure' && arr.reason, 'unrecognized_response', 'a 2.2 body');
  });

  it('refreshes ask what changed since the newest eventUpdatedDateTime seen, merge it, and read in full on schedule', async () => {
    const ev = (id: string, updated: string, extra: Record<string, unknown> = {}) => ({
      eventID: id,
      eventDateTime: updated,
      eventUpdatedDateTime: updated,
      eventClassification: {
        eventTypeCode: 'TRANSPORT',
        eventClassifierCode: 'EST',
        transportEventTypeCode: 'ARRI',
      },
      eventLocation: { UNLocationCode: 'NLRTM' },
      ...extra,
    });
    let all = [ev('a', '2026-01-01T00:00:00Z'), ev('b', '2026-01-02T00:00:00Z')];
    serve((req, res) => {
      const min = req.url.searchParams.get('eventUpdatedDateTimeMin');
      json(res, 200, {
        events: all.filter((e) => !min || Date.parse(e.eventUpdatedDateTime) >= Date.parse(min)),
      });
    });
    let clock = 0;
    const adapter = createDcsaV3Adapter({
      scac: 'TEST',
      numberTypes: ['bill_of_lading'],
      client: client(),
      updatedSince: true,
      fullReadIntervalMs: 1000,
      now: () => clock,
    });
    const ids = async () => {
      const r = await adapter.lookup('bill_of_lading', 'BL1');
      assert.equal(r.kind, 'found', JSON.stringify(r));
      return (r as { snapshot: { records: { carrierId: string | null }[] } }).snapshot.records.map(
        (x) => x.carrierId,
      );
    };
    assert.deepEqual(await ids(), ['a', 'b']);
    assert.equal(
      stub.requests[0]?.url.searchParams.get('eventUpdatedDateTimeMin'),
      null,
      'first read is full',
    );
    // b re-estimated, c new, a retracted.
    all = [
      ev('a', '2026-01-03T00:00:00Z', { isRetracted: true }),
      ev('b', '2026-01-03T00:00:00Z', { eventDateTime: '2026-02-01T00:00:00Z' }),
      ev('c', '2026-01-03T00:00:00Z'),
    ];
    assert.deepEqual(await ids(), ['b', 'c']);
    assert.equal(stub.requests[1]?.url.searchParams.get('eventUpdatedDateTimeMin'), '2026-01-02T00:00:00Z');
    // Nothing new: the remembered answer stands (the carrier answers with an empty list).
    all = [];
    assert.deepEqual(await ids(), ['b', 'c']);
    assert.equal(stub.requests[2]?.url.searchParams.get('eventUpdatedDateTimeMin'), '2026-01-03T00:00:00Z');
    // The schedule's full read takes the carrier's answer as it is.
    clock = 1000;
    all = [ev('c', '2026-01-03T00:00:00Z')];
    assert.deepEqual(await ids(), ['c']);
    assert.equal(stub.requests[3]?.url.searchParams.get('eventUpdatedDateTimeMin'), null);
  });

  it('per-carrier protocol: API-Version, paging header and not-found answers from the entry', async () => {
    const protocol = {
      ...PROTOCOL_DEFAULTS['dcsa-tnt-v3'],
      api_version: '3.0.0-beta',
      paging_header: 'X-Next',
      not_found: [{ status: 400, reason: 'unknown reference' }],
    };
    serve((req, res) =>
      req.url.searchParams.get('cursor') === 'p2'
        ? json(res, 200, { events: [{ eventID: '2' }] })
        : json(res, 200, { events: [{ eventID: '1' }] }, { 'X-Next': 'p2' }),
    );
    const r = await client({ protocol }).fetchEvents({ filters: { equipmentReference: 'X' } });
    assert.equal(r.kind === 'found' && r.events.length, 2);
    assert.equal(stub.requests[0]?.headers['api-version'], '3.0.0-beta');
    serve((_req, res) => json(res, 400, { feedbackElements: [{ message: 'Unknown reference ABC' }] }));
    assert.deepEqual(await client({ protocol }).fetchEvents({ filters: { equipmentReference: 'X' } }), {
      kind: 'not_found',
    });
  });
});
