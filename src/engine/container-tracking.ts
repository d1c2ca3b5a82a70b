import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { recordDomainEvents } from '../domain-events/record.ts';
import { iso } from '../util/iso.ts';
import { resumeShipmentTracking, stopShipmentTracking } from './line-tracking.ts';

// Stopping and resuming one container's tracking (issue 32, beyond the reference): the engine
// leaves a stopped container's stored facts as they are (apply.ts, terminal-check.ts), and its
// shipment stops, with the reason all_containers_stopped, once every one of its containers has.
// Here, below the services, because it moves the shipment's tracking too (line-tracking.ts).

/** Why one container's tracking stopped (migrations/0061 allows only this). */
export type ContainerStopReason = 'user_request';

/** The shipment stop that following its containers' stops sets, and that resuming one undoes. */
export const ALL_CONTAINERS_STOPPED = 'all_containers_stopped';

export interface ContainerTrackingChange {
  /** false when the container was already in the asked state (nothing about it changed). */
  changed: boolean;
  /** Its shipment's tracking stopped or resumed with it. */
  shipment: 'stopped' | 'resumed' | null;
}

/**
 * Locks the container's shipment row, then the container's. The shipment first: a refresh holds
 * the shipment's row from its lease check to its commit (refresh.ts, worker/leases.ts), so a stop
 * waits for a refresh under way to finish, and a refresh that starts meanwhile waits for the stop
 * and then reads the container as stopped; never a refresh writing a box stopped after it read
 * it. The same order as the shipment's own stop (line-tracking.ts), so the two cannot deadlock.
 */
async function lockContainer(tx: Kysely<DB>, accountId: string, id: string) {
  const of = await tx
    .selectFrom('containers')
    .select('shipment_id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!of) return undefined;
  await tx.selectFrom('shipments').select('id').where('id', '=', of.shipment_id).forUpdate().execute();
  return tx
    .selectFrom('containers')
    .select(['id', 'shipment_id', 'tracking_stopped_at', 'tracking_stopped_reason'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** container.updated of a user's stop or resume: the changeset is what the history keeps too. */
async function announce(
  tx: Kysely<DB>,
  accountId: string,
  c: { id: string; shipment_id: string },
  changeset: Record<string, [unknown, unknown]>,
) {
  await recordDomainEvents(tx, [
    {
      event: 'container.updated',
      account_id: accountId,
      shipment_id: c.shipment_id,
      container_id: c.id,
      reference_type: 'container_updated_event',
      changeset,
      source: 'user',
    },
  ]);
}

/**
 * Stops tracking one container (inside a transaction). Idempotent: a second stop keeps the first
 * stop's time and reason and announces nothing. The first stop writes one container.updated
 * whose changeset names tracking_stopped_at and tracking_stopped_reason; when it was the last of
 * its shipment's containers still tracked, the shipment stops too (all_containers_stopped, with
 * its tracking requests' tracking_request.tracking_stopped). Undefined when not the account's.
 */
export async function stopContainerTracking(
  tx: Kysely<DB>,
  accountId: string,
  containerId: string,
  reason: ContainerStopReason,
): Promise<ContainerTrackingChange | undefined> {
  const c = await lockContainer(tx, accountId, containerId);
  if (!c) return undefined;
  if (c.tracking_stopped_at !== null) return { changed: false, shipment: null };
  const row = await tx
    .updateTable('containers')
    .set({
      tracking_stopped_at: sql<Date>`now()`,
      tracking_stopped_reason: reason,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', c.id)
    .returning('tracking_stopped_at')
    .executeTakeFirstOrThrow();
  await announce(tx, accountId, c, {
    tracking_stopped_at: [null, iso(row.tracking_stopped_at)],
    tracking_stopped_reason: [null, reason],
  });
  const tracked = await tx
    .selectFrom('containers')
    .select('id')
    .where('shipment_id', '=', c.shipment_id)
    .where('tracking_stopped_at', 'is', null)
    .executeTakeFirst();
  if (tracked) return { changed: true, shipment: null };
  const stop = await stopShipmentTracking(tx, accountId, c.shipment_id, ALL_CONTAINERS_STOPPED);
  return { changed: true, shipment: stop?.changed ? 'stopped' : null };
}

/**
 * Resumes tracking one container (inside a transaction): clears its stop and announces it
 * (container.updated). A container that is not stopped is left as it is. Its shipment is made due
 * for a refresh now, and its stored answer fingerprint is forgotten, so the next refresh reads
 * the carrier's answer in full and the container catches up on what it missed while stopped
 * (refresh.ts would otherwise skip an answer it has seen). A shipment stopped because all its
 * containers were resumes with it; a shipment stopped for another reason (the user's stop, the
 * journey's end) stays stopped.
 */
export async function resumeContainerTracking(
  tx: Kysely<DB>,
  accountId: string,
  containerId: string,
): Promise<ContainerTrackingChange | undefined> {
  const c = await lockContainer(tx, accountId, containerId);
  if (!c) return undefined;
  if (c.tracking_stopped_at === null) return { changed: false, shipment: null };
  await clearContainerStop(tx, accountId, c);
  const shipment = await tx
    .updateTable('shipments')
    .set({ engine_fingerprint: null })
    .where('id', '=', c.shipment_id)
    .returning(['line_tracking_stopped_at', 'line_tracking_stopped_reason'])
    .executeTakeFirstOrThrow();
  if (shipment.line_tracking_stopped_reason === ALL_CONTAINERS_STOPPED) {
    const resumed = await resumeShipmentTracking(tx, accountId, c.shipment_id);
    return { changed: true, shipment: resumed?.changed ? 'resumed' : null };
  }
  if (shipment.line_tracking_stopped_at === null) {
    await tx
      .updateTable('shipments')
      .set({ next_refresh_at: sql<Date>`now()` })
      .where('id', '=', c.shipment_id)
      .execute();
  }
  return { changed: true, shipment: null };
}

async function clearContainerStop(
  tx: Kysely<DB>,
  accountId: string,
  c: {
    id: string;
    shipment_id: string;
    tracking_stopped_at: Date | null;
    tracking_stopped_reason: string | null;
  },
) {
  await tx
    .updateTable('containers')
    .set({ tracking_stopped_at: null, tracking_stopped_reason: null, updated_at: sql<Date>`now()` })
    .where('id', '=', c.id)
    .execute();
  await announce(tx, accountId, c, {
    tracking_stopped_at: [iso(c.tracking_stopped_at), null],
    tracking_stopped_reason: [c.tracking_stopped_reason, null],
  });
}

/**
 * When a shipment that stopped because all its containers had is tracked again (the user resumes
 * it, or a new tracking request names its number: request.ts): its containers resume with it (each
 * announced), or the shipment would be tracked with nothing to track. Nothing for a shipment
 * stopped for another reason. Call it in the transaction that clears the shipment's stop: before it,
 * or after it with the reason that statement saw (request.ts's upsert).
 */
export async function resumeStoppedContainers(
  tx: Kysely<DB>,
  accountId: string,
  shipmentId: string,
  /** The shipment's stop reason before it was cleared, when the caller's own statement read it. */
  stoppedReason?: string | null,
) {
  const reason =
    stoppedReason !== undefined
      ? stoppedReason
      : (
          await tx
            .selectFrom('shipments')
            .select('line_tracking_stopped_reason')
            .where('account_id', '=', accountId)
            .where('id', '=', shipmentId)
            .forUpdate()
            .executeTakeFirst()
        )?.line_tracking_stopped_reason;
  if (reason !== ALL_CONTAINERS_STOPPED) return 0;
  const stopped = await tx
    .selectFrom('containers')
    .select(['id', 'shipment_id', 'tracking_stopped_at', 'tracking_stopped_reason'])
    .where('account_id', '=', accountId)
    .where('shipment_id', '=', shipmentId)
    .where('tracking_stopped_at', 'is not', null)
    .orderBy('number')
    .forUpdate()
    .execute();
  for (const c of stopped) await clearContainerStop(tx, accountId, c);
  if (stopped.length) {
    await tx
      .updateTable('shipments')
      .set({ engine_fingerprint: null })
      .where('id', '=', shipmentId)
      .execute();
  }
  return stopped.length;
}
