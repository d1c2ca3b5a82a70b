import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';
import { claimDueRequests, claimDueShipments } from '../../src/engine/claims.ts';
import type { EngineDeps } from '../../src/engine/deps.ts';
import { processShipmentRefresh } from '../../src/engine/refresh.ts';
import { processTrackingRequest } from '../../src/engine/request.ts';
import { LeaseLost } from '../../src/worker/leases.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { FAST_ENGINE_ENV } from '../helpers/engine.ts';
import { spawnSimulator } from '../helpers/simulator.ts';

// Refreshes whose carrier answer is unchanged (same fingerprint) skip the diff and the writes and
// only reschedule; everything else still takes the full path. Driven by hand (claim, process)
// against the simulator process with its clock stopped, so the answer changes only when a test
// advances it.

const DAY = 86_400_000;

for (const engine of ENGINES) {
  describe(`refresh fingerprint: unchanged answers only reschedule [${engine}]`, () => {
    let t: TestApp;
    let sim: Awaited<ReturnType<typeof spawnSimulator>>;
    let carriers: ReturnType<typeof buildCarrierRegistry>;
    const owner = 'fingerprint-test';
    before(async () => {
      t = await startTestApp(engine, FAST_ENGINE_ENV);
      sim = await spawnSimulator(['--speed', '0', '--header', 'x-api-key: sim-secret']);
      carriers = buildCarrierRegistry(
        parseCarriersConfig(
          JSON.stringify([
            {
              scac: 'MAEU',
              adapter: 'dcsa-tnt-v2',
              base_url: sim.url,
              auth: { type: 'headers', headers: { 'x-api-key': 'sim-secret' } },
              requests_per_minute: 100000,
              number_types: ['bill_of_lading', 'booking_number', 'container'],
              timeout_ms: 2000,
            },
          ]),
          { format: 'json', env: {} },
        ),
      );
    });
    after(async () => {
      await sim?.close();
      await t?.close();
    });

    const deps = (now?: Date): EngineDeps => ({
      db: t.database.db,
      carriers,
      config: t.config,
      log: pino({ level: 'silent' }),
      owner,
      now: now ? () => now : undefined,
    });
    const db = () => t.database.db;

    /** Tracks a number through the API and runs its first attempt: a shipment with its state. */
    async function tracked(number: string): Promise<string> {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: number, scac: 'MAEU' }),
      });
      assert.equal(res.status, 201, res.text);
      const claimed = await claimDueRequests(db(), owner, 10, 60_000);
      assert.equal(claimed.length, 1);
      await processTrackingRequest(deps(), claimed[0]!);
      const s = await db()
        .selectFrom('shipments')
        .select(['id', 'engine_fingerprint'])
        .where('normalized_number', '=', number)
        .executeTakeFirstOrThrow();
      assert.ok(s.engine_fingerprint, 'the first attempt stores the fingerprint of its answer');
      await db().updateTable('shipments').set({ next_refresh_at: null }).where('id', '=', s.id).execute();
      return s.id;
    }

    async function claim(shipmentId: string) {
      // Only this shipment is due (earlier tests' shipments were rescheduled by their refreshes).
      await db().updateTable('shipments').set({ next_refresh_at: null }).execute();
      await db()
        .updateTable('shipments')
        .set({ next_refresh_at: new Date(Date.now() - 1000) })
        .where('id', '=', shipmentId)
        .execute();
      const claimed = await claimDueShipments(db(), owner, 10, 60_000);
      assert.deepEqual(
        claimed.map((c) => c.id),
        [shipmentId],
      );
      return claimed[0]!;
    }

    const refresh = async (shipmentId: string, now?: Date) =>
      processShipmentRefresh(deps(now), await claim(shipmentId));

    const row = (id: string) =>
      db()
        .selectFrom('shipments')
        .select([
          'engine_fingerprint',
          'line_tracking_last_attempted_at',
          'line_tracking_last_succeeded_at',
          'line_tracking_stopped_reason',
          'last_changed_at',
          'next_refresh_at',
          'lease_owner',
          'refresh_failures',
        ])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    const domainEvents = async (shipmentId: string) =>
      (
        await db()
          .selectFrom('domain_events')
          .select('event')
          .where('shipment_id', '=', shipmentId)
          .orderBy('seq')
          .execute()
      ).map((e) => e.event);
    const isoCodes = async (shipmentId: string) =>
      (
        await db()
          .selectFrom('containers')
          .select('iso_equipment_code')
          .where('shipment_id', '=', shipmentId)
          .orderBy('number')
          .execute()
      ).map((c) => c.iso_equipment_code);

    test('an unchanged answer records nothing, skips the writes, and still reschedules', async () => {
      const id = await tracked('SIMBL3C0101');
      const before = await row(id);
      const events = await domainEvents(id);
      const rawCount = async () =>
        Number(
          (
            await db()
              .selectFrom('raw_events')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('shipment_id', '=', id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const raws = await rawCount();
      // Tamper with stored state behind the engine's back: the full path would put it back (and
      // announce container.updated); an unchanged refresh does not even look.
      const original = await isoCodes(id);
      assert.ok(original.every((c) => c !== null));
      await db()
        .updateTable('containers')
        .set({ iso_equipment_code: 'TAMPERED' })
        .where('shipment_id', '=', id)
        .execute();

      const now = new Date(Date.now() + 5000);
      await refresh(id, now);
      const after = await row(id);
      assert.equal(after.engine_fingerprint, before.engine_fingerprint);
      assert.equal(after.line_tracking_last_attempted_at?.getTime(), now.getTime());
      assert.equal(after.line_tracking_last_succeeded_at?.getTime(), now.getTime());
      assert.equal(after.last_changed_at?.getTime(), before.last_changed_at?.getTime(), 'nothing changed');
      assert.ok(after.next_refresh_at && after.next_refresh_at.getTime() > now.getTime(), 'rescheduled');
      assert.equal(
        after.next_refresh_at!.getTime() - now.getTime(),
        t.config.worker.refreshIntervalMs,
        'the journey has not started: the normal cadence',
      );
      assert.equal(after.lease_owner, null, 'lease released');
      assert.deepEqual(await domainEvents(id), events, 'no domain event');
      assert.equal(await rawCount(), raws);
      assert.deepEqual(new Set(await isoCodes(id)), new Set(['TAMPERED']), 'the diff did not run');

      // A null fingerprint (a shipment last refreshed by a release without fingerprints) takes the
      // full path: it repairs the state, announces it, and stores the fingerprint again.
      await db().updateTable('shipments').set({ engine_fingerprint: null }).where('id', '=', id).execute();
      await refresh(id);
      assert.deepEqual(await isoCodes(id), original);
      assert.deepEqual(await domainEvents(id), [
        ...events,
        'container.updated',
        'container.updated',
        'container.updated',
      ]);
      assert.equal((await row(id)).engine_fingerprint, before.engine_fingerprint);
    });

    test('a changed answer after an unchanged one records the change, then nothing again', async () => {
      const id = await tracked('SIMBL3C0102');
      const initial = await row(id);
      await refresh(id); // unchanged
      const events = await domainEvents(id);
      await sim.advance(4); // gate-in, load and departure at the port of loading
      const now = new Date();
      await refresh(id, now);
      const changed = await row(id);
      assert.notEqual(changed.engine_fingerprint, initial.engine_fingerprint);
      assert.equal(changed.last_changed_at?.getTime(), now.getTime());
      const added = (await domainEvents(id)).slice(events.length);
      for (const e of [
        'container.transport.full_in',
        'container.transport.vessel_loaded',
        'container.transport.vessel_departed',
      ])
        assert.equal(added.filter((x) => x === e).length, 3, `${e} once per container in ${added}`);

      await refresh(id); // the new answer, unchanged
      assert.deepEqual((await domainEvents(id)).slice(events.length), added);
      assert.equal((await row(id)).engine_fingerprint, changed.engine_fingerprint);
    });

    test('a time-based stop reason still fires on an unchanged answer', async () => {
      const id = await tracked('SIMBL3C0103');
      const before = await row(id);
      const events = await domainEvents(id);
      // The line reports nothing new for longer than STOP_NO_UPDATES_WINDOW_MS.
      const later = new Date(before.last_changed_at!.getTime() + t.config.worker.noUpdatesWindowMs + DAY);
      await refresh(id, later);
      const after = await row(id);
      assert.equal(after.line_tracking_stopped_reason, 'no_updates_at_line');
      assert.equal(after.next_refresh_at, null);
      assert.equal(after.engine_fingerprint, before.engine_fingerprint);
      assert.deepEqual((await domainEvents(id)).slice(events.length), ['tracking_request.tracking_stopped']);
    });

    test('a row written since the claim takes the full path; a lost lease writes nothing', async () => {
      const id = await tracked('SIMBL3C0104');
      const events = await domainEvents(id);
      const original = await isoCodes(id);
      await db()
        .updateTable('containers')
        .set({ iso_equipment_code: 'TAMPERED' })
        .where('shipment_id', '=', id)
        .execute();
      // The API edits the shipment while the refresh is in flight: the one-statement update no
      // longer matches the row version the claim read, so the full path runs (and repairs).
      let s = await claim(id);
      const patched = await t.request('PATCH', `/v2/shipments/${id}`, {
        body: { data: { type: 'shipment', id, attributes: { tags: ['edited'] } } },
      });
      assert.equal(patched.status, 200, patched.text);
      const now = new Date(Date.now() + 5000);
      await processShipmentRefresh(deps(now), s);
      let r = await row(id);
      assert.equal(r.line_tracking_last_attempted_at?.getTime(), now.getTime());
      assert.equal(r.lease_owner, null);
      assert.deepEqual(await isoCodes(id), original, 'the full path ran');
      assert.deepEqual((await domainEvents(id)).slice(events.length), [
        'container.updated',
        'container.updated',
        'container.updated',
      ]);

      // Another worker took the shipment over (our lease expired): nothing is written.
      s = await claim(id);
      await db().updateTable('shipments').set({ lease_owner: 'someone-else' }).where('id', '=', id).execute();
      await assert.rejects(processShipmentRefresh(deps(new Date(Date.now() + 9000)), s), LeaseLost);
      r = await row(id);
      assert.equal(r.line_tracking_last_attempted_at?.getTime(), now.getTime());
      assert.equal(r.lease_owner, 'someone-else');
      await db()
        .updateTable('shipments')
        .set({ lease_owner: null, next_refresh_at: null })
        .where('id', '=', id)
        .execute();
    });

    test('a refresh that must retry writes one statement, and only under its lease', async () => {
      const id = await tracked('SIMBL3C0105');
      // The shipment's line has no connection in this registry: the refresh fails for now.
      await db().updateTable('shipments').set({ scac: 'ZIMU' }).where('id', '=', id).execute();
      const state = () =>
        db()
          .selectFrom('shipments')
          .select(['lease_owner', 'refresh_failures', 'next_refresh_at', 'line_tracking_last_attempted_at'])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      const before = await state();
      // Taken over by another worker (our lease expired): nothing is written.
      let s = await claim(id);
      await db().updateTable('shipments').set({ lease_owner: 'someone-else' }).where('id', '=', id).execute();
      await assert.rejects(processShipmentRefresh(deps(new Date(Date.now() + 1000)), s), LeaseLost);
      let r = await state();
      assert.equal(r.lease_owner, 'someone-else');
      assert.equal(r.refresh_failures, before.refresh_failures);
      assert.deepEqual(r.line_tracking_last_attempted_at, before.line_tracking_last_attempted_at);

      await db()
        .updateTable('shipments')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('id', '=', id)
        .execute();
      s = await claim(id);
      const now = new Date(Date.now() + 2000);
      await processShipmentRefresh(deps(now), s);
      r = await state();
      assert.equal(r.lease_owner, null, 'lease released');
      assert.equal(r.refresh_failures, before.refresh_failures + 1);
      assert.equal(r.line_tracking_last_attempted_at?.getTime(), now.getTime());
      assert.ok(r.next_refresh_at! > now, 'the next refresh is later than the attempt');
      await db()
        .updateTable('shipments')
        .set({ scac: 'MAEU', next_refresh_at: null })
        .where('id', '=', id)
        .execute();
    });

    test('an attempt that must retry writes one statement, and only under its lease', async () => {
      // A line with no connection in this registry: every attempt is a temporary failure.
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'ZIMURETRY1', scac: 'ZIMU' }),
      });
      assert.equal(res.status, 201, res.text);
      const id = res.body.data.id as string;
      const state = () =>
        db()
          .selectFrom('tracking_requests')
          .select([
            'lease_owner',
            'retry_count',
            'is_retrying',
            'failed_reason',
            'next_attempt_at',
            'last_attempt_at',
          ])
          .where('id', '=', id)
          .executeTakeFirstOrThrow();
      let [claimed] = await claimDueRequests(db(), owner, 10, 60_000);
      assert.equal(claimed?.id, id);
      // Taken over by another worker (our lease expired): nothing is written.
      await db()
        .updateTable('tracking_requests')
        .set({ lease_owner: 'someone-else' })
        .where('id', '=', id)
        .execute();
      await assert.rejects(processTrackingRequest(deps(), claimed!), LeaseLost);
      assert.equal((await state()).lease_owner, 'someone-else');
      assert.equal((await state()).is_retrying, false);

      await db()
        .updateTable('tracking_requests')
        .set({ lease_owner: null, lease_expires_at: null })
        .where('id', '=', id)
        .execute();
      [claimed] = await claimDueRequests(db(), owner, 10, 60_000);
      await processTrackingRequest(deps(), claimed!);
      const after = await state();
      assert.equal(after.lease_owner, null, 'lease released');
      assert.equal(after.retry_count, 1);
      assert.equal(after.is_retrying, true);
      assert.equal(after.failed_reason, 'shipping_line_unreachable');
      // Later than the attempt (not than now: the test's retry base is 20 ms, which a slow run outlasts).
      assert.ok(after.next_attempt_at! > after.last_attempt_at!, 'the next attempt is later');
    });
  });
}
