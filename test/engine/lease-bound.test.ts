// Look-ups are bounded by their lease (issue 31): a carrier that answers slower than
// WORKER_LEASE_MS is cut off at half the lease (the carrier sees the request closed), the
// look-up counts in lookups_aborted_total, the tracking request stays pending and is asked again
// later (never "not found"), and stopping the worker does not wait for the slow call.

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { staticHeadersAuth } from '../../src/carriers/auth.ts';
import { createDcsaAdapter } from '../../src/carriers/dcsa/adapter.ts';
import { createDcsaClient } from '../../src/carriers/dcsa/client.ts';
import { leaseBound, untilAborted } from '../../src/engine/lease-bound.ts';
import type { Engine } from '../../src/engine/start.ts';
import { createMetrics } from '../../src/metrics.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

const LEASE_MS = 2000;

describe('lease bound', () => {
  test('an adapter that ignores the signal is not waited for: half the lease, or shutdown at once', async () => {
    const never = new Promise<string>(() => {});
    let t0 = Date.now();
    const bound = leaseBound(400);
    assert.equal(await untilAborted(never, bound.signal, () => 'aborted'), 'aborted');
    assert.ok(Date.now() - t0 >= 190, `${Date.now() - t0} ms`);
    assert.equal(bound.cause(), 'lease');

    const shutdown = new AbortController();
    const stopping = leaseBound(60_000, shutdown.signal);
    t0 = Date.now();
    setTimeout(() => shutdown.abort(), 20);
    assert.equal(await untilAborted(never, stopping.signal, () => 'aborted'), 'aborted');
    assert.ok(Date.now() - t0 < 1000);
    assert.equal(stopping.cause(), 'shutdown');

    // An answer in time is the answer.
    assert.equal(
      await untilAborted(Promise.resolve('found'), leaseBound(60_000).signal, () => 'aborted'),
      'found',
    );
  });
});

for (const engine of ENGINES) {
  describe(`look-ups bounded by their lease [${engine}]`, () => {
    let t: TestApp;
    let worker: Engine | undefined;
    // The carrier: takes every request and never answers; records arrival and when it was closed.
    const calls: Array<{ at: number; closedAt: number | null }> = [];
    const carrier = createServer((req: IncomingMessage) => {
      const call = { at: Date.now(), closedAt: null as number | null };
      calls.push(call);
      req.socket.once('close', () => {
        call.closedAt = Date.now();
      });
    });
    before(async () => {
      await new Promise<void>((r) => carrier.listen(0, '127.0.0.1', r));
      t = await startTestApp(engine, { ...FAST_ENGINE_ENV, WORKER_LEASE_MS: String(LEASE_MS) });
    });
    after(async () => {
      await worker?.stop();
      await t?.close();
      carrier.closeAllConnections();
      carrier.close();
    });

    test('aborted at half the lease, counted, retried; shutdown does not wait', {
      timeout: 60_000,
    }, async () => {
      const metrics = createMetrics(t.database);
      const client = createDcsaClient({
        baseUrl: `http://127.0.0.1:${(carrier.address() as AddressInfo).port}/carrier/api`,
        auth: staticHeadersAuth({}),
        // Far longer than the lease: only the lease bound can end the call.
        timeoutMs: 60_000,
      });
      const adapter = createDcsaAdapter({ scac: 'MSCU', numberTypes: ['bill_of_lading'], client });
      worker = startTestEngine(t.database, t.config, new Map([['MSCU', adapter]]), {
        onLookupAborted: (kind, cause) => metrics.lookupsAborted.inc({ kind, cause }),
      });
      const created = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'SLOWLEASE1', scac: 'MSCU' }),
      });
      assert.equal(created.status, 201, created.text);

      const first = await eventually(
        async () => (calls[0]?.closedAt ? calls[0] : null),
        20_000,
        'first call cut off',
      );
      const heldMs = first.closedAt! - first.at;
      // At half the lease from the look-up's start (the request reaches the carrier a little later).
      assert.ok(heldMs < LEASE_MS, `cut off after ${heldMs} ms`);
      const text = async () =>
        (await metrics.registry.getSingleMetricAsString('lookups_aborted_total')) ?? '';
      assert.match(await text(), /lookups_aborted_total\{kind="carrier",cause="lease"\} [1-9]/);

      // Asked again later, and still pending: an aborted look-up is a transient failure.
      await eventually(async () => calls.length >= 2, 20_000, 'a retry');
      const row = await t.database.db
        .selectFrom('tracking_requests')
        .select(['status', 'failed_reason', 'retry_count'])
        .where('id', '=', created.body.data.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.status, 'pending');
      assert.ok((row.retry_count ?? 0) >= 1, JSON.stringify(row));

      // Stop while a call is in flight: no wait for the carrier, nor for the lease bound.
      await eventually(async () => calls.some((c) => c.closedAt === null), 20_000, 'a call in flight');
      const t0 = Date.now();
      await worker.stop();
      worker = undefined;
      const stopMs = Date.now() - t0;
      assert.ok(stopMs < LEASE_MS / 4, `stop took ${stopMs} ms`);
      assert.match(await text(), /lookups_aborted_total\{kind="carrier",cause="shutdown"\} 1/);
      console.log(`cut off after ${heldMs} ms (lease ${LEASE_MS} ms); stop took ${stopMs} ms`);
    });
  });
}
