import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createAccount } from '../../src/accounts/service.ts';
import { ApiError } from '../../src/errors.ts';
import { getPort, getTerminal, getVessel } from '../../src/reference/service.ts';
import {
  containerListFilter,
  containerRawEvents,
  containerTransportEvents,
  getContainer,
  refreshContainer,
} from '../../src/shipments/containers/service.ts';
import {
  editShipment,
  getShipment,
  listShipmentsOf,
  resumeTracking,
  shipmentSort,
  stopTracking,
} from '../../src/shipments/service.ts';
import { getShippingLine } from '../../src/shipping-lines/service.ts';
import { batchedTrackingRequestInsert } from '../../src/tracking-requests/queries.ts';
import {
  createTrackingRequest,
  editTrackingRequest,
  getTrackingRequest,
  inferTrackingNumber,
  listTrackingRequestsOf,
  trackingRequestSort,
} from '../../src/tracking-requests/service.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { POD_TERMINAL, seedShipment, VESSEL } from '../helpers/seed.ts';

// The services without HTTP: what the worker, the CLI, the console and the MCP server call. Each
// takes the database, the account and validated input, and answers rows or documents, or throws a
// catalogue error (status and code), the same the routes render.

/** Asserts that `fn` rejects with a catalogue error of this status and code. */
async function rejectsWith(fn: () => unknown, status: number, code?: string): Promise<void> {
  await assert.rejects(
    async () => fn(),
    (err: unknown) => {
      assert.ok(err instanceof ApiError, `an ApiError, got ${String(err)}`);
      assert.equal(err.status, status);
      if (code) assert.equal(err.errors[0]?.code, code);
      return true;
    },
  );
}

for (const engine of ENGINES) {
  describe(`services [${engine}]`, () => {
    let database: TestDatabase;
    let accountId: string;
    let otherId: string;
    before(async () => {
      database = await createTestDatabase(engine);
      accountId = (await createAccount(database.db, 'services')).account.id;
      otherId = (await createAccount(database.db, 'other')).account.id;
    });
    after(() => database.destroy());

    test('tracking requests: create, duplicate, get, list, edit, each only within the account', async () => {
      const db = database.db;
      const insert = batchedTrackingRequestInsert(db);
      const attrs = {
        request_type: 'bill_of_lading' as const,
        request_number: 'hlcu sha 1234567',
        scac: 'hlcu',
      };
      const tr = await createTrackingRequest(db, insert, accountId, attrs);
      assert.equal(tr.request_number, 'HLCUSHA1234567');
      assert.equal(tr.status, 'pending');
      await rejectsWith(() => createTrackingRequest(db, insert, accountId, attrs), 422, 'duplicate');
      // Another account may track the same number.
      await createTrackingRequest(db, insert, otherId, attrs);

      assert.equal((await getTrackingRequest(db, accountId, tr.id, false)).row.id, tr.id);
      await rejectsWith(() => getTrackingRequest(db, otherId, tr.id, false), 404);
      await rejectsWith(() => getTrackingRequest(db, accountId, 'not-a-uuid', false), 404);

      const listed = await listTrackingRequestsOf(
        db,
        accountId,
        {
          sort: trackingRequestSort(undefined),
          request_number: 'HLCU SHA 1234567',
          includeTrackedObject: true,
        },
        { number: 1, size: 10 },
      );
      assert.deepEqual(
        listed.rows.map((r) => r.id),
        [tr.id],
      );
      assert.equal(listed.total, 1);
      assert.deepEqual(listed.included, [], 'a pending request has no shipment yet');
      assert.throws(
        () => trackingRequestSort('name'),
        (e) => e instanceof ApiError && e.status === 400,
      );

      const edited = await editTrackingRequest(db, accountId, tr.id, {
        ref_numbers: [' PO-1 ', 'PO-1'],
        tags: ['x'],
      });
      assert.deepEqual(edited.ref_numbers, ['PO-1']);
      assert.deepEqual(edited.shipment_tags, ['x']);
      await rejectsWith(() => editTrackingRequest(db, accountId, tr.id, { tags: ['ok', ' '] }), 422, 'blank');
      await rejectsWith(() => editTrackingRequest(db, otherId, tr.id, { tags: ['x'] }), 404);
    });

    test('infer: a valid container number is recognised; garbage is a 422 at the given pointer', () => {
      const inference = inferTrackingNumber('MSCU 6639871', '/number');
      assert.equal(inference.number_type, 'container');
      assert.equal(inference.number, 'MSCU6639871');
      assert.throws(
        () => inferTrackingNumber('??', '/data/attributes/number'),
        (e) =>
          e instanceof ApiError &&
          e.status === 422 &&
          e.errors[0]?.source?.pointer === '/data/attributes/number',
      );
      assert.throws(
        () => inferTrackingNumber(undefined, '/number'),
        (e) => e instanceof ApiError && e.errors[0]?.code === 'blank',
      );
    });

    test('shipments: get with includes, list, edit, stop and resume wake the right worker', async () => {
      const db = database.db;
      const s = await seedShipment(db, accountId, { tags: ['a'] });
      const one = await getShipment(db, accountId, s.shipmentId, new Set(['containers']));
      assert.equal(one.data.id, s.shipmentId);
      assert.deepEqual(new Set(one.included?.map((r) => r.id)), new Set(s.containerIds));
      await rejectsWith(() => getShipment(db, otherId, s.shipmentId, new Set()), 404);

      const page = await listShipmentsOf(
        db,
        accountId,
        { number: s.number, sort: shipmentSort('-updated_at') },
        { number: 1, size: 5 },
        new Set(),
      );
      assert.deepEqual(
        page.data.map((r) => r.id),
        [s.shipmentId],
      );
      assert.equal(page.total, 1);

      const edited = await editShipment(db, accountId, s.shipmentId, { tags: [' b ', 'b'] });
      assert.deepEqual(edited.data.attributes.tags, ['b']);
      await rejectsWith(() => editShipment(db, accountId, s.shipmentId, { ref_numbers: [''] }), 422, 'blank');

      const woken: string[] = [];
      const stopped = await stopTracking(db, accountId, s.shipmentId, (k) => woken.push(k));
      assert.ok(stopped.data.attributes.line_tracking_stopped_at);
      assert.deepEqual(woken, ['webhook'], 'its created tracking request moved: the webhook worker is woken');
      await stopTracking(db, accountId, s.shipmentId, (k) => woken.push(k));
      assert.deepEqual(woken, ['webhook'], 'a second stop moves nothing and wakes nobody');

      const [containerId] = s.containerIds;
      await rejectsWith(() => refreshContainer(db, accountId, containerId!), 422, 'tracking_stopped');

      const resumed = await resumeTracking(db, accountId, s.shipmentId, (k) => woken.push(k));
      assert.equal(resumed.data.attributes.line_tracking_stopped_at, null);
      assert.deepEqual(woken, ['webhook', 'refresh']);
      await rejectsWith(() => stopTracking(db, otherId, s.shipmentId), 404);
    });

    test('containers and transport events: pages, includes, refresh, account isolation', async () => {
      const db = database.db;
      const s = await seedShipment(db, accountId);
      const id = s.containerIds[0]!;
      const c = await getContainer(db, accountId, id, new Set(['shipment']));
      assert.equal(c.data?.id, id);
      assert.deepEqual(
        c.included.map((r) => r.id),
        [s.shipmentId],
      );
      await rejectsWith(() => getContainer(db, otherId, id, new Set()), 404);

      const events = await containerTransportEvents(db, accountId, id, { number: 1, size: 100 }, new Set());
      assert.deepEqual(
        events.data.map((e) => e.id),
        s.transportEventIds.get(id),
      );
      assert.equal(events.included, undefined, 'no includes asked for: no included member');
      const raw = await containerRawEvents(db, accountId, id, { number: 1, size: 100 });
      assert.equal(raw.containerId, id);
      assert.ok(raw.total > 0);

      const woken: string[] = [];
      const refreshed = await refreshContainer(db, accountId, id, (k) => woken.push(k));
      assert.equal(refreshed.id, id);
      assert.deepEqual(woken, ['refresh']);

      assert.deepEqual(containerListFilter(undefined, ' hlxu 1234567 '), {
        shipment_id: undefined,
        number: 'HLXU1234567',
      });
      assert.throws(
        () => containerListFilter('nope', undefined),
        (e) => e instanceof ApiError && e.status === 400,
      );
    });

    test('reference data and shipping lines: lookups by every key, 404 otherwise', async () => {
      const db = database.db;
      await seedShipment(db, accountId);
      assert.equal(getPort('nl rtm').locode, 'NLRTM');
      assert.equal(getTerminal(`NLRTM:${POD_TERMINAL.smdg_code!.toLowerCase()}`).id, POD_TERMINAL.id);
      const vessel = await getVessel(db, `IMO${VESSEL.imo}`);
      assert.equal(vessel.name, VESSEL.name);
      assert.equal((await getVessel(db, vessel.id.toUpperCase())).id, vessel.id);
      await rejectsWith(() => getVessel(db, randomUUID()), 404);
      assert.throws(
        () => getPort('XXXXX'),
        (e) => e instanceof ApiError && e.status === 404,
      );
      assert.equal(getShippingLine('HLCU').scac, 'HLCU');
      assert.equal(getShippingLine(getShippingLine('HLCU').id).scac, 'HLCU');
      assert.throws(
        () => getShippingLine('NOPE'),
        (e) => e instanceof ApiError && e.status === 404,
      );
    });
  });
}
