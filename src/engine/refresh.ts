import { sql } from 'kysely';
import { iso } from '../util/iso.ts';
import { rowWrites } from '../worker/batch.ts';
import { LeaseLost, lockLease } from '../worker/leases.ts';
import { applySnapshot } from './apply.ts';
import type { ClaimedShipment } from './claims.ts';
import type { EngineDeps } from './deps.ts';
import { answerFingerprint } from './fingerprint.ts';
import { nextRefreshAt, retryDelayMs, type ShipmentTimeline, stopReason } from './lifecycle.ts';
import { stopShipmentTracking } from './line-tracking.ts';
import { lookup, readFound, recordsOf } from './lookup.ts';

// Refreshes of active shipments: the unchanged fast path (same answer fingerprint as the stored
// state) and the full path (normalize, diff, write).

/**
 * A refresh whose answer has the fingerprint the stored state was built from (fingerprint.ts):
 * the full path would plan nothing, record nothing and store no raw event, so only the
 * bookkeeping is left: one statement, shared with the other unchanged refreshes that finish at
 * the same time (engine_release_unchanged, migrations/0006: its commit does not wait for the WAL
 * flush, since losing it only means refreshing again). The claim read
 * what it needs (claims.ts), and the update applies only if the row is still the version the
 * claim wrote (xmin) and still leased to us. Anything that wrote the row since (a tracking request applying another answer to this
 * shipment, a stop, resume or refresh request from the API, another worker after our lease
 * expired) makes it match nothing, and the full path runs instead, with its lease check. Stored
 * state the API can change (stop/resume, tags, refresh requests) is not part of what the diff
 * compares, so it cannot make the full path's result differ for the same answer; reference data
 * and the engine's code are part of the fingerprint.
 *
 * Returns false when the full path must run: the claim read no usable state, a time-based stop
 * reason fires (the full path records the stop exactly as before), or the row changed.
 */
async function refreshUnchanged(deps: EngineDeps, s: ClaimedShipment, now: Date): Promise<boolean> {
  if (s.last_changed_at === null) return false;
  const timeline: ShipmentTimeline = {
    pod_eta_at: iso(s.pod_eta_at),
    pod_ata_at: iso(s.pod_ata_at),
    containers: s.container_times.map(([fullOut, finalFullOut, emptyIn]) => ({
      pod_full_out_at: fullOut,
      final_destination_full_out_at: finalFullOut,
      empty_terminated_at: emptyIn,
    })),
  };
  const cfg = deps.config.worker;
  if (stopReason({ ...timeline, last_changed_at: s.last_changed_at, booking_cancelled: false }, now, cfg))
    return false;
  return releaseUnchanged(deps, {
    id: s.id,
    rowVersion: s.row_version,
    attemptedAt: now.toISOString(),
    nextAt: nextRefreshAt(timeline, now, cfg).toISOString(),
  });
}

interface Release {
  id: string;
  rowVersion: string;
  attemptedAt: string;
  nextAt: string;
}

// Unchanged refreshes that finish within a few milliseconds of each other are released together
// (worker/batch.ts).
const releaseUnchanged = rowWrites<EngineDeps, Release>(
  async (deps, items) =>
    (
      await sql<{ id: string }>`
      select id from engine_release_unchanged(${deps.owner},
        ${items.map((i) => i.id)}::uuid[], ${items.map((i) => i.rowVersion)}::xid[],
        ${items.map((i) => i.attemptedAt)}::timestamptz[], ${items.map((i) => i.nextAt)}::timestamptz[]) as id`.execute(
        deps.db,
      )
    ).rows,
);

interface RefreshRetry {
  id: string;
  failures: number;
  attemptedAt: string;
  nextAt: string;
}

// A refresh that failed for now (the line down, or no connection configured for it) writes its
// retry with the other retries that finish at the same time (worker/batch.ts), guarded by the
// lease, instead of a transaction of its own that locks the row first: four round trips and a
// commit per attempt, which under read load waited behind the API's queries while holding a pool
// connection, and kept the attempt's objects alive long enough to reach the old generation
// (docs/benchmarks.md, "The worker beside the API").
const recordRefreshRetry = rowWrites<EngineDeps, RefreshRetry>(
  async (deps, items) =>
    (
      await sql<{ id: string }>`
      update shipments s
         set lease_owner = null, lease_expires_at = null, line_tracking_last_attempted_at = u.attempted_at,
             refresh_failures = u.failures, next_refresh_at = u.next_at
        from unnest(${items.map((i) => i.id)}::uuid[], ${items.map((i) => i.failures)}::int[],
                    ${items.map((i) => i.attemptedAt)}::timestamptz[], ${items.map((i) => i.nextAt)}::timestamptz[])
             as u(id, failures, attempted_at, next_at)
       where s.id = u.id and s.lease_owner = ${deps.owner}
      returning s.id`.execute(deps.db)
    ).rows,
);

/** One refresh of an active shipment. */
export async function processShipmentRefresh(deps: EngineDeps, s: ClaimedShipment): Promise<void> {
  const raw = await lookup(deps, s.scac, s.request_type, s.normalized_number, {
    references: s.ref_numbers,
  });
  const now = deps.now?.() ?? new Date();
  const fingerprint =
    raw.kind === 'found' ? answerFingerprint(raw.snapshot, s.request_type, s.normalized_number) : null;
  if (fingerprint !== null && fingerprint === s.engine_fingerprint && (await refreshUnchanged(deps, s, now)))
    return;
  const { result, snapshot } = readFound(raw, s.request_type, s.normalized_number);
  if (result.kind === 'temporary_failure') {
    const failures = s.refresh_failures + 1;
    const delay = Math.min(
      Math.max(retryDelayMs(failures, deps.config.worker.retryBaseMs), result.retryAfterMs ?? 0),
      deps.config.worker.refreshIntervalMs,
    );
    const written = await recordRefreshRetry(deps, {
      id: s.id,
      failures,
      attemptedAt: now.toISOString(),
      nextAt: new Date(now.getTime() + delay).toISOString(),
    });
    if (!written) throw new LeaseLost(`lease on shipments ${s.id} lost`);
    return;
  }
  let recorded = false;
  await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, 'shipments', s.id, deps.owner);
    const release = {
      lease_owner: null,
      lease_expires_at: null,
      line_tracking_last_attempted_at: now,
      // Bookkeeping only: updated_at is for the shipment's data (migrations/0021).
    };
    if (result.kind === 'found' && snapshot) {
      await applySnapshot(tx, deps, {
        accountId: s.account_id,
        shipmentId: s.id,
        trackingRequestId: null,
        initial: false,
        snapshot,
        raw: recordsOf(raw),
        fingerprint,
        now,
      });
      recorded = true;
    } else if (result.kind === 'permanent_failure' && result.reason === 'booking_cancelled') {
      await tx.updateTable('shipments').set(release).where('id', '=', s.id).execute();
      await stopShipmentTracking(tx, s.account_id, s.id, 'booking_cancelled');
      recorded = true;
    } else {
      // Not found (or unusable) on a refresh: the carrier dropped it for now; keep the cadence and
      // let no_updates_at_line end it if it never comes back.
      await tx
        .updateTable('shipments')
        .set({ ...release, next_refresh_at: new Date(now.getTime() + deps.config.worker.refreshIntervalMs) })
        .where('id', '=', s.id)
        .execute();
      const row = await tx
        .selectFrom('shipments')
        .select('last_changed_at')
        .where('id', '=', s.id)
        .executeTakeFirstOrThrow();
      if (
        row.last_changed_at &&
        now.getTime() - row.last_changed_at.getTime() >= deps.config.worker.noUpdatesWindowMs
      ) {
        await stopShipmentTracking(tx, s.account_id, s.id, 'no_updates_at_line');
        recorded = true;
      }
    }
  });
  if (recorded) deps.onDomainEvents?.();
}
