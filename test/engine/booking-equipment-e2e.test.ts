// A carrier that answers a booking only together with a container (HMM, CARRIER-NOTES §1), end to
// end: the simulator in that mode, a CARRIERS_CONFIG entry with `requires_equipment`, and
// tracking requests through the API and the worker, through the 2.2 and the 3.0.0 adapter. The
// container numbers come from the request's ref_numbers; refreshes use the shipment's.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSimulator, startSimulator } from '../../sim/server.ts';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

const BOOKING = 'BKGTSU200000'; // the booking of container SIMU2000001 (docs/simulator.md)
const CONTAINER = 'SIMU2000001';
// One line per adapter, both requiring a container with a booking.
const LINES = { HDMU: 'dcsa-tnt-v2', ZIMU: 'dcsa-tnt-v3' } as const;

for (const engine of ENGINES) {
  describe(`a carrier that wants a booking and a container together [${engine}]`, () => {
    let t: TestApp;
    let sim: RunningSimulator;
    let worker: Engine;
    before(async () => {
      sim = await startSimulator({
        epoch: '2026-03-02T00:00:00Z',
        speed: 0,
        quirks: { requireEquipmentWith: ['carrierBookingReference'] },
      });
      t = await startTestApp(engine, { ...FAST_ENGINE_ENV, TRACKING_RETRY_MAX: '0' });
      const entries = parseCarriersConfig(
        JSON.stringify(
          Object.entries(LINES).map(([scac, adapter]) => ({
            scac,
            adapter,
            base_url: adapter === 'dcsa-tnt-v3' ? `${sim.url}/v3` : sim.url,
            auth: { type: 'headers', headers: { 'x-gateway-apikey': 'k' } },
            requests_per_minute: 100_000,
            number_types: ['booking_number', 'container'],
            requires_equipment: ['booking_number'],
            timeout_ms: 2000,
          })),
        ),
        { format: 'json' },
      );
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry(entries));
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
      await sim?.close();
    });

    async function track(scac: string, refNumbers: string[], key?: string) {
      const res = await t.request('POST', '/v2/tracking_requests', {
        key,
        body: trBody({
          request_type: 'booking_number',
          request_number: BOOKING,
          scac,
          ref_numbers: refNumbers,
        }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      return eventually(async () => {
        const b = (
          await t.request('GET', `/v2/tracking_requests/${res.body.data.id}?include=shipment`, { key })
        ).body;
        return b.data.attributes.status !== 'pending' && b;
      });
    }

    for (const [scac, adapter] of Object.entries(LINES)) {
      it(`${adapter}: the booking with the container of ref_numbers becomes a shipment, and refreshes keep asking both`, async () => {
        const tr = await track(scac, ['PO-77', CONTAINER]);
        assert.equal(tr.data.attributes.status, 'created', JSON.stringify(tr.data.attributes));
        const shipment = tr.included.find((r: any) => r.type === 'shipment');
        assert.equal(shipment.attributes.port_of_lading_locode, 'CNSGH');
        assert.equal(shipment.attributes.port_of_discharge_locode, 'NLRTM');
        const [box] = shipment.relationships.containers.data;
        const container = (await t.request('GET', `/v2/containers/${box.id}`)).body.data;
        assert.equal(container.attributes.number, CONTAINER);

        const asked = sim.stats().total;
        const refreshed = await t.request('PATCH', `/v2/containers/${box.id}/refresh`);
        assert.equal(refreshed.status, 200, refreshed.text);
        worker.wake();
        await eventually(async () => sim.stats().total > asked, 10_000, 'a refresh at the carrier');
        assert.equal(sim.stats().byStatus[400], undefined, 'the carrier never refused a query');
      });

      it(`${adapter}: without a container number the request fails at once, naming what is missing`, async () => {
        // Another account: the same booking is already tracked in the first.
        const tr = await track(scac, ['PO-77'], (await t.newAccount(`no-box-${scac}`)).key);
        assert.equal(tr.data.attributes.status, 'failed');
        assert.equal(tr.data.attributes.failed_reason, 'invalid_number');
        // Asked the booking alone, the carrier would have refused (the other shipment's refreshes go on).
        assert.equal(sim.stats().byStatus[400], undefined, 'the carrier was not asked the booking alone');
      });
    }
  });
}
