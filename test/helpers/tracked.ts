import assert from 'node:assert/strict';
import type { Engine } from '../../src/engine/start.ts';
import type { TestApp } from './app.ts';
import { eventually } from './engine.ts';

export interface Tracked {
  trackingRequestId: string;
  shipmentId: string;
  containerIds: string[];
}

/** Tracks a sandbox number (SCAC TEST) for the key's account and waits until the worker has the shipment. */
export async function trackSandbox(
  t: TestApp,
  worker: Engine,
  number: string,
  key = t.key,
): Promise<Tracked> {
  const res = await t.request('POST', '/v2/tracking_requests', {
    key,
    body: {
      data: {
        type: 'tracking_request',
        attributes: { request_type: 'bill_of_lading', request_number: number, scac: 'TEST' },
      },
    },
  });
  assert.equal(res.status, 201, res.text);
  const id = res.body.data.id as string;
  worker.wake();
  // Polled in the database, not through the API: set-up spends none of the account's rate limit.
  const shipmentId = await eventually(
    async () =>
      (
        await t.database.db
          .selectFrom('tracking_requests')
          .select('shipment_id')
          .where('id', '=', id)
          .executeTakeFirst()
      )?.shipment_id,
    20_000,
    `shipment of ${number}`,
  );
  const shipment = await t.request('GET', `/v2/shipments/${shipmentId}`, { key });
  return {
    trackingRequestId: id,
    shipmentId,
    containerIds: shipment.body.data.relationships.containers.data.map((c: { id: string }) => c.id),
  };
}
