import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine } from '../../src/engine/start.ts';
import { buildTerminalDirectory } from '../../src/terminals/registry.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { TERMINAL_ENV } from '../helpers/terminal-journeys.ts';

// The sandbox line (SCAC TEST) includes the terminal feed with no configuration: an empty
// TERMINALS_CONFIG still gives TEST shipments their terminal data, in-process, on the sandbox
// carrier's clock.

const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`sandbox line with its built-in terminal feed [${engine}]`, () => {
    let t: TestApp;
    let worker: Engine;
    const epoch = new Date(Math.floor(Date.now() / DAY) * DAY);
    let now = epoch.getTime();
    const clock = () => new Date(now);
    before(async () => {
      t = await startTestApp(engine, { ...FAST_ENGINE_ENV, ...TERMINAL_ENV });
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry([], { clock }), {
        terminals: buildTerminalDirectory([], { clock }),
      });
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
    });

    test('SIMTDLV0001 at TEST: availability and the delivery reach the container', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'SIMTDLV0001', scac: 'TEST' }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      const container = async () => {
        const tr = await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`);
        const id = tr.body.data.relationships.tracked_object?.data?.id;
        if (!id) return null;
        const s = await t.request('GET', `/v2/shipments/${id}?include=containers`);
        return (s.body.included ?? []).find((r: any) => r.type === 'container')?.attributes ?? null;
      };
      const first = await eventually(container, 15_000, 'the shipment');
      assert.equal(first.availability_known, false);
      now = epoch.getTime() + 20 * DAY;
      worker.wake();
      const available = await eventually(
        async () => {
          const c = await container();
          // The carrier refresh (discharge) and the terminal check (availability) are separate
          // loops: wait for both.
          return c?.available_for_pickup === true && c.current_status === 'available' && c;
        },
        15_000,
        'available and discharged',
      );
      assert.equal(available.current_status, 'available');
      assert.ok(available.pickup_lfd);
      now = epoch.getTime() + 30 * DAY;
      worker.wake();
      const delivered = await eventually(
        async () => {
          const c = await container();
          return c?.delivered_at && c;
        },
        15_000,
        'delivered',
      );
      assert.equal(delivered.available_for_pickup, false);
      const events = await t.database.db
        .selectFrom('domain_events')
        .select('event')
        .where('account_id', '=', t.accountId)
        .execute();
      const names = events.map((e) => e.event);
      for (const e of ['container.transport.available', 'container.transport.delivered'])
        assert.ok(names.includes(e), `${e} in ${names.join(', ')}`);

      // The change history names the terminal as the source of the availability it reported.
      const box = await t.database.db
        .selectFrom('containers')
        .select('id')
        .where('account_id', '=', t.accountId)
        .executeTakeFirstOrThrow();
      const changes = await t.request(
        'GET',
        `/v2/containers/${box.id}/changes?filter[attribute]=available_for_pickup`,
      );
      assert.equal(changes.status, 200, changes.text);
      assert.deepEqual(
        changes.body.data
          .map((c: any) => [c.attributes.before, c.attributes.after, c.attributes.source])
          .reverse(),
        [
          [null, true, 'terminal'],
          [true, false, 'terminal'],
        ],
      );
    });
  });
}
