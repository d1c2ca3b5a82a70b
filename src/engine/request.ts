import { randomUUID } from 'node:crypto';
import { type Kysely, sql, type UpdateObject } from 'kysely';
import type { DB } from '../db/schema.ts';
import { recordDomainEvents } from '../domain-events/record.ts';
import { rowWrites } from '../worker/batch.ts';
import { LeaseLost } from '../worker/leases.ts';
import { applySnapshot } from './apply.ts';
import type { ClaimedRequest } from './claims.ts';
import { resumeStoppedContainers } from './container-tracking.ts';
import type { EngineDeps } from './deps.ts';
import { resolveScac } from './detect-scac.ts';
import { answerFingerprint } from './fingerprint.ts';
import { decideRequest } from './lifecycle.ts';
import { lookup, readFound, recordsOf } from './lookup.ts';

// A tracking request's attempts: ask the carrier, decide (lifecycle.ts), and on success create or
// reuse the account's shipment and write the first snapshot.

/** One attempt at a pending or awaiting-manifest tracking request. */
export async function processTrackingRequest(deps: EngineDeps, claimed: ClaimedRequest): Promise<void> {
  const resolved = await resolveScac(deps, claimed);
  if (!resolved) return;
  const tr = resolved as ClaimedRequest & { scac: string };
  const raw = await lookup(deps, tr.scac, tr.request_type, tr.request_number, {
    references: tr.ref_numbers,
  });
  const { result, snapshot } = readFound(raw, tr.request_type, tr.request_number);
  const now = deps.now?.() ?? new Date();
  const decision = decideRequest(tr, result, now, deps.config.worker);
  if (decision.kind === 'retry') {
    // One write and nothing to record with it, shared with the other retries that finish at the
    // same time (worker/batch.ts), instead of a transaction of its own that locks the row first
    // (four round trips and a commit per attempt). Most attempts end here while a line is down.
    const written = await recordRetry(deps, {
      id: tr.id,
      reason: decision.reason,
      retryCount: decision.retryCount,
      nextAt: decision.nextAttemptAt.toISOString(),
      attemptedAt: now.toISOString(),
    });
    if (!written) throw new LeaseLost(`lease on tracking_requests ${tr.id} lost`);
    return;
  }
  let recorded = false;
  await deps.db.transaction().execute(async (tx) => {
    const done = {
      lease_owner: null,
      lease_expires_at: null,
      last_attempt_at: now,
      updated_at: sql<Date>`now()`,
    };
    // The decision is written only while the request is still leased to us: the update locks the
    // row and checks the lease in one statement (instead of a SELECT ... FOR UPDATE first), and
    // a lost lease rolls the whole transaction back.
    const decide = async (set: UpdateObject<DB, 'tracking_requests'>) => {
      const own = await tx
        .updateTable('tracking_requests')
        .set(set)
        .where('id', '=', tr.id)
        .where('lease_owner', '=', deps.owner)
        .returning('id')
        .executeTakeFirst();
      if (!own) throw new LeaseLost(`lease on tracking_requests ${tr.id} lost`);
    };
    const event = (name: string, shipmentId: string | null = null) =>
      recordDomainEvents(tx, [
        {
          event: name,
          account_id: tr.account_id,
          tracking_request_id: tr.id,
          shipment_id: shipmentId,
          reference_type: 'tracking_request',
          reference_id: tr.id,
        },
      ]);
    switch (decision.kind) {
      case 'fail':
        await decide({
          ...done,
          status: 'failed',
          failed_reason: decision.reason,
          is_retrying: false,
          next_attempt_at: null,
        });
        await event('tracking_request.failed');
        recorded = true;
        return;
      case 'await_manifest':
        await decide({
          ...done,
          status: 'awaiting_manifest',
          failed_reason: null,
          is_retrying: false,
          next_attempt_at: decision.nextAttemptAt,
          awaiting_manifest_since: decision.firstTime ? now : undefined,
        });
        if (decision.firstTime) {
          await event('tracking_request.awaiting_manifest');
          recorded = true;
        }
        return;
      case 'succeed': {
        // The shipment and the decision in one statement (the shipment's row lock, then the
        // request's): a lost lease rolls both back.
        const shipmentId = await linkShipment(
          tx,
          tr,
          {
            ...done,
            status: 'created',
            failed_reason: null,
            is_retrying: false,
            next_attempt_at: null,
          },
          deps.owner,
        );
        await event('tracking_request.succeeded', shipmentId.id);
        await applySnapshot(tx, deps, {
          accountId: tr.account_id,
          shipmentId: shipmentId.id,
          trackingRequestId: tr.id,
          initial: shipmentId.created,
          snapshot: snapshot!,
          raw: recordsOf(raw),
          fingerprint:
            raw.kind === 'found' ? answerFingerprint(raw.snapshot, tr.request_type, tr.request_number) : null,
          now,
        });
        recorded = true;
        return;
      }
    }
  });
  if (recorded) deps.onDomainEvents?.();
}

interface Retry {
  id: string;
  reason: string;
  retryCount: number;
  nextAt: string;
  attemptedAt: string;
}

/** Writes a retry decision if the request is still leased to us; whether it was written. */
const recordRetry = rowWrites<EngineDeps, Retry>(
  async (deps, items) =>
    (
      await sql<{ id: string }>`
      update tracking_requests t
         set lease_owner = null, lease_expires_at = null, last_attempt_at = u.attempted_at,
             updated_at = now(), failed_reason = u.reason, is_retrying = true,
             retry_count = u.retry_count, next_attempt_at = u.next_at
        from unnest(${items.map((i) => i.id)}::uuid[], ${items.map((i) => i.reason)}::text[],
                    ${items.map((i) => i.retryCount)}::int[], ${items.map((i) => i.nextAt)}::timestamptz[],
                    ${items.map((i) => i.attemptedAt)}::timestamptz[])
             as u(id, reason, retry_count, next_at, attempted_at)
       where t.id = u.id and t.lease_owner = ${deps.owner}
      returning t.id`.execute(deps.db)
    ).rows,
);

/**
 * The account's shipment for this number, created or reused (and resumed) from an earlier request,
 * and the request's decision (`set`, with the shipment's id) written while it is still leased to
 * `owner`: one statement. The shipment is one upsert on the (account, scac, number) key instead of
 * a locking read then an insert or an update (`xmax = 0` tells a row it inserted from one it
 * updated); the request's update, a data-modifying CTE beside it, reads its id from the upsert's
 * RETURNING. A lost lease updates no request row: LeaseLost, and the transaction rolls back.
 */
async function linkShipment(
  tx: Kysely<DB>,
  tr: ClaimedRequest & { scac: string },
  set: UpdateObject<DB, 'tracking_requests'>,
  owner: string,
): Promise<{ id: string; created: boolean }> {
  const row = await tx
    // The shipment's stop reason before the upsert clears it (the statement's snapshot): a shipment
    // stopped because all its containers were has them resumed below.
    .with('prev', (db) =>
      db
        .selectFrom('shipments')
        .select('line_tracking_stopped_reason')
        .where('account_id', '=', tr.account_id)
        .where('scac', '=', tr.scac)
        .where('normalized_number', '=', tr.request_number),
    )
    .with('s', (db) =>
      db
        .insertInto('shipments')
        .values({
          id: randomUUID(),
          account_id: tr.account_id,
          scac: tr.scac,
          request_type: tr.request_type,
          normalized_number: tr.request_number,
          bill_of_lading_number: tr.request_number,
          ref_numbers: tr.ref_numbers,
          tags: tr.shipment_tags,
        })
        .onConflict((oc) =>
          oc.columns(['account_id', 'scac', 'normalized_number']).doUpdateSet({
            ref_numbers: sql<
              string[]
            >`array(select distinct unnest(shipments.ref_numbers || ${tr.ref_numbers}::text[]))`,
            tags: sql<string[]>`array(select distinct unnest(shipments.tags || ${tr.shipment_tags}::text[]))`,
            line_tracking_stopped_at: null,
            line_tracking_stopped_reason: null,
            updated_at: sql<Date>`now()`,
          }),
        )
        .returning(['id', sql<boolean>`xmax = 0`.as('created')]),
    )
    .with('t', (db) =>
      db
        .updateTable('tracking_requests')
        .set({ ...set, shipment_id: sql<string>`(select id from s)` })
        .where('id', '=', tr.id)
        .where('lease_owner', '=', owner)
        .returning('id'),
    )
    .selectFrom('s')
    .select([
      's.id',
      's.created',
      sql<boolean>`exists (select 1 from t)`.as('own'),
      sql<string | null>`(select line_tracking_stopped_reason from prev)`.as('stopped_reason'),
    ])
    .executeTakeFirstOrThrow();
  if (!row.own) throw new LeaseLost(`lease on tracking_requests ${tr.id} lost`);
  // Tracked again after every container was stopped on its own: they are tracked again too.
  if (row.stopped_reason) await resumeStoppedContainers(tx, tr.account_id, row.id, row.stopped_reason);
  return { id: row.id, created: row.created };
}
