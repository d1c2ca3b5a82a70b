// A refresh that finds nothing new writes nothing a reader sees (issue 12): no row of the
// shipment's data changes, updated_at stays, and the change feed sends nothing for the account
// (so its cached responses survive); only the line-tracking attempt times move. Both the fast path
// (same answer fingerprint) and the full path (fingerprint cleared: normalize, diff, empty plan)
// are exercised, then a refresh with news as the control.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createSandboxAdapter } from '../../src/carriers/sandbox.ts';
import { parseChange } from '../../src/db/change-feed.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

const EPOCH = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 5 * 86_400_000);
const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`no-op refreshes write nothing [${engine}]`, () => {
    let t: TestApp;
    let worker: Engine;
    let day = 5;
    const notified: string[] = [];
    let stopListening: (() => Promise<void>) | undefined;
    before(async () => {
      t = await startTestApp(engine, {
        ...FAST_ENGINE_ENV,
        REFRESH_INTERVAL_MS: '3600000',
        REFRESH_NEAR_ARRIVAL_MS: '3600000',
      });
      const sandbox = createSandboxAdapter({
        clock: () => new Date(EPOCH.getTime() + day * DAY),
        epoch: EPOCH,
      });
      worker = startTestEngine(t.database, t.config, new Map([['TEST', sandbox]]));
      stopListening = await t.database.listen(['tracker_changes'], {
        // The account of each notification (migrations/0037: '<account> <table> <ids>').
        onNotify: (_channel, payload) => notified.push(parseChange(payload).accountId),
        onState: () => {},
      });
    });
    after(async () => {
      await stopListening?.();
      await worker?.stop();
      await t?.close();
    });

    const shipment = (id: string) =>
      t.database.db.selectFrom('shipments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    async function snapshotOf(id: string) {
      const s = await shipment(id);
      const containers = await t.database.db
        .selectFrom('containers')
        .select(['id', 'updated_at'])
        .where('shipment_id', '=', id)
        .orderBy('id')
        .execute();
      const events = await t.database.db
        .selectFrom('transport_events')
        .select(['id', 'updated_at'])
        .where('shipment_id', '=', id)
        .orderBy('id')
        .execute();
      const raw = await t.database.db
        .selectFrom('raw_events')
        .select(['id', 'payload'])
        .where('shipment_id', '=', id)
        .orderBy('id')
        .execute();
      return { updated_at: s.updated_at.toISOString(), containers, events, raw };
    }
    async function refresh(id: string, d: number): Promise<void> {
      day = d;
      const before = (await shipment(id)).line_tracking_last_attempted_at;
      await t.database.db
        .updateTable('shipments')
        .set({ next_refresh_at: new Date(Date.now() - 1000) })
        .where('id', '=', id)
        .execute();
      worker.wake();
      await eventually(async () => {
        const s = await shipment(id);
        return (
          s.line_tracking_last_attempted_at?.getTime() !== before?.getTime() &&
          s.lease_owner === null &&
          s.next_refresh_at !== null &&
          s.next_refresh_at > new Date()
        );
      });
    }
    const settle = () => new Promise((r) => setTimeout(r, 300));

    test('same answer twice (fast path, then full path): nothing written, nothing notified', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'SIMTS0005', scac: 'TEST' }),
      });
      assert.equal(res.status, 201);
      worker.wake();
      const tr = await eventually(async () => {
        const r = await t.request('GET', `/v2/tracking_requests/${res.body.data.id}`);
        return r.body.data.attributes.status === 'created' && r.body;
      });
      const id = tr.data.relationships.tracked_object.data.id as string;
      await settle();
      const before = await snapshotOf(id);
      const attemptedBefore = (await shipment(id)).line_tracking_last_attempted_at;
      const cached = `/v2/shipments/${id}?include=containers`;
      await t.request('GET', cached);
      assert.equal((await t.request('GET', cached)).headers.get('x-cache'), 'hit');
      notified.length = 0;

      await refresh(id, 5); // same answer: the fingerprint fast path
      // The full path: the fingerprint cleared (bookkeeping, itself not a change readers see).
      await t.database.db
        .updateTable('shipments')
        .set({ engine_fingerprint: null })
        .where('id', '=', id)
        .execute();
      await refresh(id, 5);
      await settle();
      assert.deepEqual(await snapshotOf(id), before);
      assert.deepEqual(
        notified.filter((a) => a === t.accountId || a === '*'),
        [],
        'no change-feed notification for the account',
      );
      assert.equal(
        (await t.request('GET', cached)).headers.get('x-cache'),
        'hit',
        'the cached answer survives',
      );
      const after = await shipment(id);
      assert.ok(after.line_tracking_last_attempted_at! > attemptedBefore!, 'the attempt is recorded');

      // Control: news moves updated_at and notifies.
      await refresh(id, 12);
      await settle();
      const changed = await snapshotOf(id);
      assert.notEqual(changed.updated_at, before.updated_at);
      assert.ok(notified.includes(t.accountId), 'a real change notifies');
    });
  });
}
