import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine as Worker } from '../../src/engine/start.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { eventually, FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';

// Issue 13 (5): auto_detect_vocc_scac. The request is created with scac null and status pending;
// the engine then infers the SCAC before the first carrier call, or fails the request with
// scac_auto_detect_failed (no shipment).

for (const engine of ENGINES) {
  describe(`auto_detect_vocc_scac [${engine}]`, () => {
    let t: TestApp;
    let worker: Worker;
    before(async () => {
      t = await startTestApp(engine, FAST_ENGINE_ENV);
      worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
    });
    after(async () => {
      await worker.stop();
      await t.close();
    });

    const settled = (id: string, check: (a: any) => boolean) =>
      eventually(
        async () => {
          const res = await t.request('GET', `/v2/tracking_requests/${id}`);
          return check(res.body.data.attributes) && res.body.data;
        },
        20_000,
        `request ${id}`,
      );

    test('a known prefix: created with scac null, then the detected SCAC', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'bill_of_lading',
          request_number: 'MEDUAD000001',
          auto_detect_vocc_scac: true,
        }),
      });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.data.attributes.scac, null);
      assert.equal(res.body.data.attributes.status, 'pending');
      worker.wake();
      const after = await settled(res.body.data.id, (a) => a.scac !== null);
      assert.equal(after.attributes.scac, 'MSCU');
      assert.notEqual(after.attributes.failed_reason, 'scac_auto_detect_failed');
    });

    test('no supported line inferred: failed with scac_auto_detect_failed, no shipment', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'bill_of_lading',
          request_number: 'QQAD12345',
          auto_detect_vocc_scac: true,
        }),
      });
      assert.equal(res.status, 201, res.text);
      worker.wake();
      const after = await settled(res.body.data.id, (a) => a.status === 'failed');
      assert.equal(after.attributes.failed_reason, 'scac_auto_detect_failed');
      assert.equal(after.attributes.scac, null);
      assert.equal(after.relationships.tracked_object.data, null);
    });

    test('without scac and without auto detection: 422 at scac; a given scac wins', async () => {
      const missing = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'MEDUAD000002' }),
      });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.errors[0].source.pointer, '/data/attributes/scac');
      const off = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'bill_of_lading',
          request_number: 'MEDUAD000002',
          auto_detect_vocc_scac: false,
        }),
      });
      assert.equal(off.status, 422);
      const given = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'bill_of_lading',
          request_number: 'MEDUAD000003',
          scac: 'MSCU',
          auto_detect_vocc_scac: true,
        }),
      });
      assert.equal(given.status, 201, given.text);
      assert.equal(given.body.data.attributes.scac, 'MSCU');
      const bad = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'bill_of_lading', request_number: 'X1', auto_detect_vocc_scac: 'yes' }),
      });
      assert.equal(bad.status, 422);
    });
  });
}
