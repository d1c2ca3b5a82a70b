// Issue 32, item 2: a container whose tracking a user stopped is no longer checked at its
// terminal, while another box at a terminal keeps being checked; resumed, it is checked again.
// The simulator process (carrier and terminal feed), the worker and the API, on each engine.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV } from '../helpers/engine.ts';
import { startSimulatedWorld, TERMINAL_ENV } from '../helpers/terminal-journeys.ts';
import { LOOPBACK_WEBHOOKS } from '../helpers/worker-app.ts';

for (const engine of ENGINES) {
  describe(`terminal checks leave a stopped container alone [${engine}]`, () => {
    let t: TestApp;
    let world: Awaited<ReturnType<typeof startSimulatedWorld>>;

    before(async () => {
      t = await startTestApp(engine, { ...FAST_ENGINE_ENV, ...LOOPBACK_WEBHOOKS, ...TERMINAL_ENV });
      world = await startSimulatedWorld(t);
    });
    after(async () => {
      await world?.close();
      await t?.close();
    });

    test('no check while stopped; its neighbour keeps being checked; checked again once resumed', async () => {
      const key = world.acct.key;
      // Two boxes of one bill of lading (SIMBL3C: three), so that the shipment keeps tracking.
      const tr = await world.track('SIMBL3C0001');
      await eventually(async () => world.containerOf(tr), 20_000, `containers of ${tr}`);
      const trDoc = await t.request('GET', `/v2/tracking_requests/${tr}`, { key });
      const shipmentId = trDoc.body.data.relationships.tracked_object.data.id;
      const shipment = await t.request('GET', `/v2/shipments/${shipmentId}?include=containers`, { key });
      const [box, neighbour] = shipment.body.included.filter((r: any) => r.type === 'container');
      const checkedAt = async (id: string) =>
        (
          await t.database.db
            .selectFrom('container_terminal_checks')
            .select('checked_at')
            .where('container_id', '=', id)
            .executeTakeFirst()
        )?.checked_at?.getTime() ?? null;
      // Both are being checked (every TERMINAL_CHECK_INTERVAL_MS).
      for (const c of [box, neighbour]) {
        const first = await eventually(async () => checkedAt(c.id), 20_000, `a first check of ${c.id}`);
        await eventually(async () => ((await checkedAt(c.id)) ?? 0) > first, 20_000, `checks of ${c.id}`);
      }

      const res = await t.request('PATCH', `/v2/containers/${box.id}/stop_tracking`, { key });
      assert.equal(res.status, 200, res.text);
      // A check claimed before the stop may still be finishing: it writes nothing (terminal-check.ts).
      await new Promise((r) => setTimeout(r, 300));
      const frozen = await checkedAt(box.id);
      const neighbourFrom = (await checkedAt(neighbour.id)) ?? 0;
      await eventually(
        async () => ((await checkedAt(neighbour.id)) ?? 0) > neighbourFrom + 400,
        20_000,
        'the neighbour checked for another 400 ms',
      );
      assert.equal(await checkedAt(box.id), frozen, 'the stopped box was not checked');
      const after = await t.request('GET', `/v2/shipments/${shipmentId}`, { key });
      assert.equal(
        after.body.data.attributes.line_tracking_stopped_at,
        null,
        'the shipment is still tracked',
      );

      assert.equal(
        (await t.request('PATCH', `/v2/containers/${box.id}/resume_tracking`, { key })).status,
        200,
      );
      await eventually(async () => ((await checkedAt(box.id)) ?? 0) > (frozen ?? 0), 20_000, 'checked again');
    });
  });
}
