import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { recordDomainEvents } from '../domain-events/record.ts';
import type { StopReason as LifecycleStop } from './lifecycle.ts';

// Stopping and resuming a shipment's tracking at the line, with its tracking requests and their
// domain events. Here, below the services, because the engine stops tracking on its own
// (apply.ts, refresh.ts) and the shipments service stops and resumes it when asked.

/**
 * Why tracking stops: the engine's reasons (lifecycle.ts), the user's cancel, or every one of the
 * shipment's containers stopped on its own (container-tracking.ts).
 */
export type StopReason = LifecycleStop | 'cancelled_by_user' | 'all_containers_stopped';

export interface TrackingChange {
  /** false when the shipment was already in the asked state (nothing about it changed). */
  changed: boolean;
  /** Tracking requests whose status moved. */
  trackingRequestIds: string[];
}

async function lockShipment(tx: Kysely<DB>, accountId: string, id: string) {
  return tx
    .selectFrom('shipments')
    .select(['id', 'line_tracking_stopped_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Stops tracking a shipment at the line. Run it inside a transaction (`tx`): it locks the
 * shipment row, sets line_tracking_stopped_at/_reason (kept as they were when the shipment is
 * already stopped: the first stop wins), clears next_refresh_at, moves the shipment's `created`
 * tracking requests to `tracking_stopped` and writes one `tracking_request.tracking_stopped`
 * domain event per moved request. Undefined when the shipment is not the account's.
 */
export async function stopShipmentTracking(
  tx: Kysely<DB>,
  accountId: string,
  shipmentId: string,
  reason: StopReason,
): Promise<TrackingChange | undefined> {
  const current = await lockShipment(tx, accountId, shipmentId);
  if (!current) return undefined;
  const changed = current.line_tracking_stopped_at === null;
  if (changed) {
    await tx
      .updateTable('shipments')
      .set({
        line_tracking_stopped_at: sql<Date>`now()`,
        line_tracking_stopped_reason: reason,
        next_refresh_at: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', shipmentId)
      .execute();
  }
  const moved = await tx
    .updateTable('tracking_requests')
    .set({ status: 'tracking_stopped', updated_at: sql<Date>`now()` })
    .where('account_id', '=', accountId)
    .where('shipment_id', '=', shipmentId)
    .where('status', '=', 'created')
    .returning('id')
    .execute();
  const ids = moved.map((r) => r.id);
  await insertTrackingRequestEvents(tx, accountId, shipmentId, 'tracking_request.tracking_stopped', ids, {
    status: ['created', 'tracking_stopped'],
    line_tracking_stopped_reason: [null, reason],
  });
  return { changed, trackingRequestIds: ids };
}

/**
 * Writes one domain event per tracking request (reference_type `tracking_request`). Part of the
 * caller's transaction; the webhook worker turns these rows into notifications.
 */
export async function insertTrackingRequestEvents(
  tx: Kysely<DB>,
  accountId: string,
  shipmentId: string | null,
  event: string,
  trackingRequestIds: string[],
  changeset: Record<string, unknown> | null = null,
): Promise<void> {
  // Through recordDomainEvents, so subscribed webhooks get their notifications in this transaction.
  await recordDomainEvents(
    tx,
    trackingRequestIds.map((id) => ({
      event,
      account_id: accountId,
      tracking_request_id: id,
      shipment_id: shipmentId,
      reference_type: 'tracking_request',
      reference_id: id,
      changeset,
    })),
  );
}

/**
 * Resumes tracking a stopped shipment (inside a transaction): clears the stop fields, makes it
 * due for a refresh now, and moves its `tracking_stopped` requests back to `created` — the newest
 * per number, and only when no other active request holds that number (the duplicate rule).
 * A shipment that is not stopped is left as it is.
 */
export async function resumeShipmentTracking(
  tx: Kysely<DB>,
  accountId: string,
  shipmentId: string,
): Promise<TrackingChange | undefined> {
  const current = await lockShipment(tx, accountId, shipmentId);
  if (!current) return undefined;
  if (current.line_tracking_stopped_at === null) return { changed: false, trackingRequestIds: [] };
  await tx
    .updateTable('shipments')
    .set({
      line_tracking_stopped_at: null,
      line_tracking_stopped_reason: null,
      next_refresh_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', shipmentId)
    .execute();
  const stopped = await tx
    .selectFrom('tracking_requests as t')
    .select(['t.id', 't.scac', 't.request_number'])
    .where('t.account_id', '=', accountId)
    .where('t.shipment_id', '=', shipmentId)
    .where('t.status', '=', 'tracking_stopped')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('tracking_requests as o')
            .select('o.id')
            .whereRef('o.account_id', '=', 't.account_id')
            .whereRef('o.scac', '=', 't.scac')
            .whereRef('o.request_number', '=', 't.request_number')
            .where('o.status', 'in', ['pending', 'awaiting_manifest', 'created']),
        ),
      ),
    )
    .orderBy('t.created_at', 'desc')
    .orderBy('t.id', 'desc')
    .execute();
  const seen = new Set<string>();
  const ids: string[] = [];
  for (const r of stopped) {
    const k = `${r.scac}\u0000${r.request_number}`;
    if (seen.has(k)) continue;
    seen.add(k);
    ids.push(r.id);
  }
  if (ids.length) {
    await tx
      .updateTable('tracking_requests')
      .set({ status: 'created', updated_at: sql<Date>`now()` })
      .where('id', 'in', ids)
      .execute();
  }
  return { changed: true, trackingRequestIds: ids };
}
