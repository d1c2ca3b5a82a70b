import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { recordDomainEvents } from '../domain-events/record.ts';

/**
 * Stops tracking a shipment at the line (idempotent: the first stop keeps its time and reason),
 * moves its active tracking requests to `tracking_stopped` and records one
 * `tracking_request.tracking_stopped` per request, all in the caller's transaction.
 */
export async function stopShipmentTracking(
  tx: Kysely<DB>,
  shipmentId: string,
  reason: string,
): Promise<boolean> {
  const stopped = await tx
    .updateTable('shipments')
    .set({
      line_tracking_stopped_at: sql<Date>`now()`,
      line_tracking_stopped_reason: reason,
      next_refresh_at: null,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', shipmentId)
    .where('line_tracking_stopped_at', 'is', null)
    .returning(['id', 'account_id'])
    .executeTakeFirst();
  if (!stopped) return false;
  const requests = await tx
    .updateTable('tracking_requests')
    .set({ status: 'tracking_stopped', updated_at: sql<Date>`now()` })
    .where('shipment_id', '=', shipmentId)
    .where('status', '=', 'created')
    .returning(['id'])
    .execute();
  await recordDomainEvents(
    tx,
    requests.map((r) => ({
      event: 'tracking_request.tracking_stopped',
      account_id: stopped.account_id,
      tracking_request_id: r.id,
      shipment_id: shipmentId,
      reference_type: 'tracking_request',
      reference_id: r.id,
    })),
  );
  return true;
}

/** Resumes tracking: due at once again; stopped tracking requests become `created`. */
export async function resumeShipmentTracking(tx: Kysely<DB>, shipmentId: string): Promise<void> {
  await tx
    .updateTable('shipments')
    .set({
      line_tracking_stopped_at: null,
      line_tracking_stopped_reason: null,
      next_refresh_at: sql<Date>`now()`,
      refresh_failures: 0,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', shipmentId)
    .execute();
  await tx
    .updateTable('tracking_requests')
    .set({ status: 'created', updated_at: sql<Date>`now()` })
    .where('shipment_id', '=', shipmentId)
    .where('status', '=', 'tracking_stopped')
    .execute();
}
