// IoT and reefer events of DCSA 3.0.0 end to end: a 3.0.0 carrier (a real HTTP server answering
// DCSA's own example answers, both pages of the paged example) tracked through a CARRIERS_CONFIG
// entry and the worker. The readings are kept as raw events under their container, with what the
// carrier sent, and make no transport event.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';
import type { Engine } from '../../src/engine/start.ts';
import { json, type Stub, startStub } from '../carriers/stub-server.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

const DIR = new URL('../fixtures/dcsa-v3/', import.meta.url);
const page = (name: string) =>
  JSON.parse(readFileSync(new URL(name, DIR), 'utf8')) as { events: Record<string, unknown>[] };
const FIRST = page('tnt-300-response.json');
const SECOND = page('tnt-300-response-nextpage.json');
const typeOf = (e: Record<string, unknown>) =>
  (e.eventClassification as { eventTypeCode: string }).eventTypeCode;
const READINGS = [...FIRST.events, ...SECOND.events].filter((e) => ['IOT', 'REEFER'].includes(typeOf(e)));
const BOOKING = 'ABC709951';
const CONTAINER = 'APZU4812090';

for (const engine of ENGINES) {
  describe(`DCSA 3.0.0 IoT and reefer readings are stored as raw events [${engine}]`, () => {
    let t: TestApp;
    let carrier: Stub;
    let worker: Engine;
    before(async () => {
      carrier = await startStub((req, res) => {
        if (req.url.searchParams.get('carrierBookingReference') !== BOOKING)
          return json(res, 200, { events: [] });
        if (req.url.searchParams.get('cursor') === 'page-2') return json(res, 200, SECOND);
        res.setHeader('Next-Page-Cursor', 'page-2');
        return json(res, 200, FIRST);
      });
      t = await startTestApp(engine, FAST_ENGINE_ENV);
      const entries = parseCarriersConfig(
        JSON.stringify([
          {
            scac: 'MAEU',
            adapter: 'dcsa-tnt-v3',
            base_url: `${carrier.url}/track-and-trace/v3`,
            auth: { type: 'headers', headers: { 'Consumer-Key': 'k' } },
            requests_per_minute: 100_000,
            number_types: ['booking_number', 'container'],
            timeout_ms: 2000,
          },
        ]),
        { format: 'json' },
      );
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry(entries));
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
      await carrier?.close();
    });

    it('the readings list under their container with their payload; transport events come from the rest', async () => {
      const created = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'booking_number', request_number: BOOKING, scac: 'MAEU' }),
      });
      assert.equal(created.status, 201, created.text);
      worker.wake();
      const tr = await eventually(async () => {
        const b = (await t.request('GET', `/v2/tracking_requests/${created.body.data.id}`)).body;
        return b.data.attributes.status !== 'pending' && b;
      });
      // Found (and soon stopped: the examples' journey ended months ago).
      assert.ok(['created', 'tracking_stopped'].includes(tr.data.attributes.status), JSON.stringify(tr.data));
      // Both pages were read, the second with the original filter.
      assert.equal(carrier.requests[1]!.url.searchParams.get('cursor'), 'page-2');
      assert.equal(carrier.requests[1]!.url.searchParams.get('carrierBookingReference'), BOOKING);

      const shipment = (
        await t.request('GET', `/v2/shipments/${tr.data.relationships.tracked_object.data.id}`)
      ).body;
      const [box] = shipment.data.relationships.containers.data;
      const container = (await t.request('GET', `/v2/containers/${box.id}`)).body.data;
      assert.equal(container.attributes.number, CONTAINER);

      const raw = (await t.request('GET', `/v2/containers/${box.id}/raw_events?page[size]=100`)).body.data;
      for (const reading of READINGS) {
        const row = raw.find((r: any) => r.attributes.payload?.eventID === reading.eventID);
        assert.ok(row, `${reading.eventID} is a raw event of ${CONTAINER}`);
        assert.deepEqual(row.attributes.payload, reading, 'kept as the carrier sent it, readings included');
        assert.equal(row.attributes.event, null, 'a reading is no transport event');
        assert.match(row.attributes.original_event, /^(IOT|REEFER)\b/);
        assert.equal(row.attributes.timestamp, new Date(reading.eventDateTime as string).toISOString());
      }
      assert.ok(
        READINGS.some((r) => (r.reeferDetails as object | undefined) !== undefined) &&
          READINGS.some((r) => (r.iotDetails as object | undefined) !== undefined),
        'the examples carry reefer and IoT details',
      );

      // Transport events: made from the equipment and transport events only.
      const te = (await t.request('GET', `/v2/containers/${box.id}/transport_events`)).body.data;
      assert.ok(te.length > 0, 'the equipment events made transport events');
      const readingTimes = new Set(READINGS.map((r) => new Date(r.eventDateTime as string).toISOString()));
      for (const e of te)
        assert.ok(!readingTimes.has(e.attributes.timestamp), `${e.attributes.event} is no reading`);
      const stored = await t.database.db
        .selectFrom('raw_events')
        .select(['event_type', 'equipment_reference'])
        .where('event_type', 'in', ['IOT', 'REEFER'])
        .execute();
      assert.equal(stored.length, READINGS.length);
      assert.ok(stored.every((r) => r.equipment_reference === CONTAINER));
    });
  });
}
