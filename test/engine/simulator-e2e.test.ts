import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';
import type { Engine } from '../../src/engine/start.ts';
import { checkDigit } from '../../src/util/iso6346.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { spawnSimulator } from '../helpers/simulator.ts';
import { LOOPBACK_WEBHOOKS } from '../helpers/worker-app.ts';

// The real-world path: a DCSA T&T v2.2 connection (MAEU here) pointed at the carrier simulator
// running as its own process, followed scenario by scenario through HTTP to our records.

const ENV = {
  ...FAST_ENGINE_ENV,
  ...LOOPBACK_WEBHOOKS,
  WEBHOOK_RETRY_SCHEDULE: Array(12).fill('20ms').join(','),
  TRACKING_RETRY_BASE_MS: '5',
  TRACKING_RETRY_MAX: '8',
  AWAITING_MANIFEST_INTERVAL_MS: '50',
  AWAITING_MANIFEST_MAX_MS: '1500',
};

for (const engine of ENGINES) {
  describe(`DCSA adapter against the simulator process [${engine}]`, () => {
    let t: TestApp;
    let sim: Awaited<ReturnType<typeof spawnSimulator>>;
    let worker: Engine;
    before(async () => {
      t = await startTestApp(engine, ENV);
    });
    after(async () => {
      await t?.close();
    });
    // Each scenario gets its own simulator process (its own clock) and a worker connected to it.
    beforeEach(async () => {
      sim = await spawnSimulator(['--header', 'x-api-key: sim-secret']);
      const carriers = buildCarrierRegistry(
        parseCarriersConfig(
          JSON.stringify([
            {
              scac: 'MAEU',
              adapter: 'dcsa-tnt-v2',
              base_url: sim.url,
              // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own ${ENV} syntax
              auth: { type: 'headers', headers: { 'x-api-key': '${SIM_KEY}' } },
              requests_per_minute: 100000,
              number_types: ['bill_of_lading', 'booking_number', 'container'],
              timeout_ms: 1000,
            },
            {
              scac: 'CMDU',
              adapter: 'dcsa-tnt-v2',
              base_url: 'http://127.0.0.1:9', // nothing listens: always unreachable
              auth: { type: 'headers', headers: { 'x-api-key': 'unused' } },
              requests_per_minute: 100000,
              number_types: ['bill_of_lading'],
              timeout_ms: 300,
            },
          ]),
          { format: 'json', env: { SIM_KEY: 'sim-secret' } },
        ),
      );
      worker = startTestEngine(t.database, t.config, carriers);
    });
    afterEach(async () => {
      await worker?.stop();
      await sim?.close();
    });

    async function track(number: string, type = 'bill_of_lading', scac = 'MAEU') {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: type, request_number: number, scac }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      return res.body.data.id as string;
    }
    const get = async (id: string) => (await t.request('GET', `/v2/tracking_requests/${id}`)).body;
    const until = (id: string, statuses: string[], timeoutMs?: number) =>
      eventually(
        async () => {
          const b = await get(id);
          return statuses.includes(b.data.attributes.status) && b;
        },
        timeoutMs,
        `${id} to reach ${statuses}`,
      );
    const eventsOf = async (trId: string) =>
      (
        await t.database.db
          .selectFrom('domain_events')
          .select(['event', 'shipment_id'])
          .where('account_id', '=', t.accountId)
          .where((eb) =>
            eb.or([
              eb('tracking_request_id', '=', trId),
              eb(
                'shipment_id',
                'in',
                eb.selectFrom('tracking_requests').select('shipment_id').where('id', '=', trId),
              ),
            ]),
          )
          .orderBy('seq')
          .execute()
      ).map((e) => e.event);
    const transportEvents = async (containerId: string) =>
      (await t.request('GET', `/v2/containers/${containerId}/transport_events?include=location,vessel`)).body;

    test('multi-container bill of lading: records, then the journey as domain events, then the stop', async () => {
      const id = await track('SIMBL3C0001');
      const tr = await until(id, ['created']);
      const shipment = tr.included.find((r: any) => r.type === 'shipment');
      assert.equal(shipment.attributes.port_of_lading_locode, 'CNNBO');
      assert.equal(shipment.attributes.port_of_discharge_locode, 'DEHAM');
      assert.equal(shipment.attributes.pod_timezone, 'Europe/Berlin');
      assert.equal(shipment.relationships.containers.data.length, 3);
      assert.ok(shipment.attributes.pod_eta_at, 'ETA known from the plan');
      assert.equal(shipment.attributes.pod_original_eta_at, shipment.attributes.pod_eta_at);
      // Only the success is announced for what was already there.
      assert.deepEqual(await eventsOf(id), ['tracking_request.succeeded']);

      await sim.advance(20);
      await t.request('PATCH', `/v2/containers/${shipment.relationships.containers.data[0].id}/refresh`);
      worker.wake();
      await eventually(async () => (await eventsOf(id)).includes('container.transport.vessel_departed'));
      const te = await transportEvents(shipment.relationships.containers.data[0].id);
      const names = te.data.map((e: any) => e.attributes.event);
      assert.ok(
        names.indexOf('container.transport.vessel_loaded') <
          names.indexOf('container.transport.vessel_departed'),
      );
      const loaded = te.data.find((e: any) => e.attributes.event === 'container.transport.vessel_loaded');
      assert.equal(loaded.attributes.location_locode, 'CNNBO');
      assert.equal(loaded.attributes.data_source, 'shipping_line');
      assert.ok(loaded.relationships.vessel.data, 'load has a vessel');
      assert.ok(te.included.some((r: any) => r.type === 'vessel'));
      // The on-board call at MYTPP is not a transshipment.
      assert.ok(!names.some((n: string) => n.includes('transshipment')));

      await sim.advance(60);
      const stopped = await until(id, ['tracking_stopped'], 20_000);
      const s = stopped.included.find((r: any) => r.type === 'shipment');
      assert.equal(s.attributes.line_tracking_stopped_reason, 'all_containers_terminated');
      const all = await eventsOf(id);
      for (const e of [
        'container.transport.vessel_arrived',
        'container.transport.vessel_discharged',
        'container.transport.full_out',
        'container.transport.empty_in',
        'tracking_request.tracking_stopped',
      ]) {
        assert.ok(all.includes(e), `${e} in ${all.join(', ')}`);
      }
      assert.ok(
        all.indexOf('container.transport.vessel_arrived') < all.indexOf('container.transport.empty_in'),
      );
      // Re-reading identical carrier data records nothing new.
      const count = all.length;
      await t.database.db
        .updateTable('shipments')
        .set({ next_refresh_at: new Date(), line_tracking_stopped_at: null })
        .where('id', '=', s.id)
        .execute();
      worker.wake();
      await eventually(async () => {
        const row = await t.database.db
          .selectFrom('shipments')
          .select('line_tracking_stopped_at')
          .where('id', '=', s.id)
          .executeTakeFirstOrThrow();
        return row.line_tracking_stopped_at !== null;
      });
      assert.equal((await eventsOf(id)).length, count);
      const raw = await t.request(
        'GET',
        `/v2/containers/${s.relationships.containers.data[0].id}/raw_events`,
      );
      assert.ok(raw.body.data.length > 5);
    });

    test('transshipment, rail on-carriage and the inland destination', async () => {
      const ts = await track('SIMTS0001');
      const rail = await track('SIMRAIL0001');
      await until(ts, ['created']);
      await until(rail, ['created']);
      await sim.advance(45);
      for (const id of [ts, rail]) {
        const shipmentId = (await get(id)).data.relationships.tracked_object.data.id;
        await t.database.db
          .updateTable('shipments')
          .set({ next_refresh_at: new Date() })
          .where('id', '=', shipmentId)
          .execute();
      }
      worker.wake();
      const tsEvents = await eventually(async () => {
        const e = await eventsOf(ts);
        return e.includes('container.transport.transshipment_loaded') && e;
      });
      assert.ok(tsEvents.includes('container.transport.transshipment_discharged'));
      const tsShipment = (await get(ts)).included.find((r: any) => r.type === 'shipment');
      assert.equal(tsShipment.attributes.port_of_lading_locode, 'CNSGH');
      assert.equal(tsShipment.attributes.port_of_discharge_locode, 'NLRTM');
      assert.deepEqual(tsShipment.attributes.transshipment_locodes, ['SGSIN']);

      const railEvents = await eventually(async () => {
        const e = await eventsOf(rail);
        return e.includes('container.transport.arrived_at_inland_destination') && e;
      });
      for (const e of [
        'container.transport.rail_loaded',
        'container.transport.rail_departed',
        'container.transport.rail_arrived',
      ]) {
        assert.ok(railEvents.includes(e), e);
      }
      const railShipment = (await get(rail)).included.find((r: any) => r.type === 'shipment');
      assert.equal(railShipment.attributes.port_of_discharge_locode, 'USLAX');
      assert.equal(railShipment.attributes.destination_locode, 'USCHI');
      assert.equal(railShipment.attributes.destination_timezone, 'America/Chicago');
    });

    test('manifest delay: awaiting_manifest, then created once the carrier has it', async () => {
      const id = await track('SIMLATE0001');
      const waiting = await until(id, ['awaiting_manifest']);
      assert.equal(waiting.data.attributes.failed_reason, null);
      assert.deepEqual(await eventsOf(id), ['tracking_request.awaiting_manifest']);
      await sim.advance(4);
      await until(id, ['created']);
      assert.deepEqual(await eventsOf(id), [
        'tracking_request.awaiting_manifest',
        'tracking_request.succeeded',
      ]);
    });

    test('not found: documents fail after the awaiting window, containers at once', async () => {
      const bl = await track('SIMNONE0001');
      await until(bl, ['awaiting_manifest']);
      const failed = await until(bl, ['failed'], 10_000);
      assert.equal(failed.data.attributes.failed_reason, 'not_found');
      const never = `SIMU0000001`.slice(0, 10);
      const container = `${never}${checkDigit(never)}`;
      const c = await track(container, 'container');
      const cf = await until(c, ['failed']);
      assert.equal(cf.data.attributes.failed_reason, 'not_found');
      assert.deepEqual(await eventsOf(c), ['tracking_request.failed']);
    });

    test('flaky carrier: retries are visible, then success', async () => {
      const id = await track('SIMFLAKY0001');
      const retrying = await eventually(async () => {
        const b = await get(id);
        return b.data.attributes.is_retrying && b;
      });
      assert.ok(retrying.data.attributes.retry_count >= 1);
      assert.ok(
        ['shipping_line_unreachable', 'unrecognized_response'].includes(
          retrying.data.attributes.failed_reason,
        ),
        retrying.data.attributes.failed_reason,
      );
      const done = await until(id, ['created'], 20_000);
      assert.equal(done.data.attributes.is_retrying, false);
      assert.equal(done.data.attributes.failed_reason, null);
    });

    test('unreachable carrier: retries_exhausted after the configured retries', async () => {
      const id = await track('CMDU00000001', 'bill_of_lading', 'CMDU');
      const failed = await until(id, ['failed'], 20_000);
      assert.equal(failed.data.attributes.failed_reason, 'retries_exhausted');
      assert.equal(failed.data.attributes.retry_count, 8);
      assert.deepEqual(await eventsOf(id), ['tracking_request.failed']);
    });

    test('cancelled booking fails with booking_cancelled', async () => {
      const id = await track('SIMCANC0001');
      const failed = await until(id, ['failed']);
      assert.equal(failed.data.attributes.failed_reason, 'booking_cancelled');
    });

    test('ETA revisions announce shipment.estimated.arrival; the original ETA is kept', async () => {
      const id = await track('SIMETA0001');
      const first = (await until(id, ['created'])).included.find((r: any) => r.type === 'shipment');
      const original = first.attributes.pod_original_eta_at;
      for (let day = 0; day < 40; day += 4) {
        await sim.advance(4);
        await t.database.db
          .updateTable('shipments')
          .set({ next_refresh_at: new Date() })
          .where('id', '=', first.id)
          .execute();
        worker.wake();
        await new Promise((r) => setTimeout(r, 150));
      }
      const events = await eventually(async () => {
        const e = await eventsOf(id);
        return e.includes('shipment.estimated.arrival') && e;
      });
      assert.ok(events.includes('container.transport.estimated.vessel_arrived'));
      const now = (await get(id)).included.find((r: any) => r.type === 'shipment');
      assert.equal(now.attributes.pod_original_eta_at, original);
    });

    test('a subscribed receiver gets tracking_request.succeeded, then the journey and ETA changes', async () => {
      const rx = await startReceiver();
      try {
        const acct = await t.newAccount('receiver');
        const hook = await t.request('POST', '/v2/webhooks', {
          key: acct.key,
          body: { data: { attributes: { url: rx.url('/journey') } } },
        });
        assert.equal(hook.status, 201);
        const res = await t.request('POST', '/v2/tracking_requests', {
          key: acct.key,
          body: trBody({ request_type: 'bill_of_lading', request_number: 'SIMETA0002', scac: 'MAEU' }),
        });
        worker.wake();
        await eventually(async () => rx.at('/journey').length >= 1);
        const shipmentId = (
          await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`, { key: acct.key })
        ).body.data.relationships.tracked_object.data.id;
        for (let day = 0; day < 60; day += 5) {
          await sim.advance(5);
          await t.database.db
            .updateTable('shipments')
            .set({ next_refresh_at: new Date() })
            .where('id', '=', shipmentId)
            .execute();
          worker.wake();
          await new Promise((r) => setTimeout(r, 120));
        }
        const events = await eventually(async () => {
          const names = rx.at('/journey').map((r) => r.json.data.attributes.event as string);
          return (
            names.includes('container.transport.empty_in') &&
            names.includes('tracking_request.tracking_stopped') &&
            names
          );
        }, 20_000);
        assert.equal(events[0], 'tracking_request.succeeded');
        assert.ok(events.includes('shipment.estimated.arrival'), events.join(', '));
        assert.ok(events.includes('container.transport.estimated.vessel_arrived'));
        const first = (name: string) => events.indexOf(name);
        assert.ok(first('container.transport.vessel_loaded') < first('container.transport.vessel_arrived'));
        assert.ok(first('container.transport.vessel_arrived') < first('container.transport.empty_in'));
        // Deduplicated on data.id, every notification arrived once (no failures, no retries here).
        const ids = rx.at('/journey').map((r) => r.json.data.id);
        assert.equal(new Set(ids).size, ids.length);
        // The body carries the records the event is about.
        const loaded = rx
          .at('/journey')
          .find((r) => r.json.data.attributes.event === 'container.transport.vessel_loaded')!;
        const types = new Set(loaded.json.included.map((r: any) => r.type));
        for (const type of ['transport_event', 'shipment', 'container', 'port'])
          assert.ok(types.has(type), type);
      } finally {
        await rx.close();
      }
    });
  });
}
