import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { CarrierAdapter, LookupResult, NumberType } from '../carriers/types.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { recordDomainEvents } from '../domain-events/record.ts';
import { iso } from '../http/jsonapi.ts';
import { terminalBySmdg, zoneOfLocode } from '../reference/data.ts';
import { stopShipmentTracking } from '../shipments/queries.ts';
import { type ClaimedRequest, type ClaimedShipment, lockLease } from './claims.ts';
import { diff, type Plan, type Resolve, type StoredState, snapshotFacts } from './diff.ts';
import { answerFingerprint } from './fingerprint.ts';
import {
  decideRequest,
  nextRefreshAt,
  retryDelayMs,
  type ShipmentTimeline,
  stopReason,
} from './lifecycle.ts';
import { normalize } from './normalize.ts';
import { applyPlan, loadStoredState, storeRawEvents } from './store.ts';
import type { NormalizedSnapshot } from './types.ts';

export interface EngineDeps {
  db: Kysely<DB>;
  carriers: ReadonlyMap<string, CarrierAdapter>;
  config: Config;
  log: Logger;
  /** Lease owner id of this worker. */
  owner: string;
  now?: () => Date;
  /** Called after a transaction that recorded domain events commits (wakes webhook delivery). */
  onDomainEvents?: () => void;
  /** Metrics hook for carrier calls. */
  onCarrierCall?: (scac: string, outcome: string, seconds: number) => void;
}

const resolve: Resolve = {
  terminalId: (ref) => (ref ? (terminalBySmdg(ref.port_locode, ref.smdg_code)?.id ?? null) : null),
};

async function lookup(
  deps: EngineDeps,
  scac: string,
  type: NumberType,
  number: string,
): Promise<LookupResult> {
  const adapter = deps.carriers.get(scac);
  if (!adapter) {
    return {
      kind: 'temporary_failure',
      reason: 'shipping_line_unreachable',
      detail: `no carrier connection is configured for ${scac} (see CARRIERS_CONFIG)`,
    };
  }
  if (!adapter.numberTypes.includes(type)) {
    return {
      kind: 'permanent_failure',
      reason: 'invalid_number',
      detail: `${scac} cannot look up ${type} numbers`,
    };
  }
  const started = performance.now();
  let result: LookupResult;
  try {
    result = await adapter.lookup(type, number);
  } catch (err) {
    deps.log.error({ err, scac }, 'carrier adapter threw');
    result = { kind: 'temporary_failure', reason: 'internal_processing_error', detail: 'adapter error' };
  }
  deps.onCarrierCall?.(scac, result.kind, (performance.now() - started) / 1000);
  return result;
}

/** Reads the carrier's answer; a found answer with nothing we can read is unrecognised. */
function readFound(
  result: LookupResult,
  type: NumberType,
  number: string,
): { result: LookupResult; snapshot: NormalizedSnapshot | null } {
  if (result.kind !== 'found') return { result, snapshot: null };
  const snapshot = normalize(result.events, { numberType: type, number, zoneOf: zoneOfLocode });
  if (snapshot.booking_cancelled) {
    return {
      result: {
        kind: 'permanent_failure',
        reason: 'booking_cancelled',
        detail: 'the carrier reports the booking cancelled',
      },
      snapshot,
    };
  }
  if (snapshot.parsed_event_count === 0) {
    return {
      result: {
        kind: 'temporary_failure',
        reason: 'unrecognized_response',
        detail: 'no event in the answer could be read',
      },
      snapshot: null,
    };
  }
  return { result, snapshot };
}

const EMPTY_STATE: StoredState = {
  shipment: {
    port_of_lading_locode: null,
    port_of_discharge_locode: null,
    destination_locode: null,
    transshipment_locodes: [],
    pod_terminal_id: null,
    pod_vessel: null,
    pod_voyage_number: null,
    pol_etd_at: null,
    pol_atd_at: null,
    pod_eta_at: null,
    pod_ata_at: null,
    destination_eta_at: null,
    destination_ata_at: null,
  },
  containers: [],
};

/** One attempt at a pending or awaiting-manifest tracking request. */
export async function processTrackingRequest(deps: EngineDeps, tr: ClaimedRequest): Promise<void> {
  const raw = await lookup(deps, tr.scac, tr.request_type, tr.request_number);
  const { result, snapshot } = readFound(raw, tr.request_type, tr.request_number);
  const now = deps.now?.() ?? new Date();
  const decision = decideRequest(tr, result, now, deps.config.worker);
  let recorded = false;
  await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, 'tracking_requests', tr.id, deps.owner);
    const done = {
      lease_owner: null,
      lease_expires_at: null,
      last_attempt_at: now,
      updated_at: sql<Date>`now()`,
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
        await tx
          .updateTable('tracking_requests')
          .set({
            ...done,
            status: 'failed',
            failed_reason: decision.reason,
            is_retrying: false,
            next_attempt_at: null,
          })
          .where('id', '=', tr.id)
          .execute();
        await event('tracking_request.failed');
        recorded = true;
        return;
      case 'retry':
        await tx
          .updateTable('tracking_requests')
          .set({
            ...done,
            failed_reason: decision.reason,
            is_retrying: true,
            retry_count: decision.retryCount,
            next_attempt_at: decision.nextAttemptAt,
          })
          .where('id', '=', tr.id)
          .execute();
        return;
      case 'await_manifest':
        await tx
          .updateTable('tracking_requests')
          .set({
            ...done,
            status: 'awaiting_manifest',
            failed_reason: null,
            is_retrying: false,
            next_attempt_at: decision.nextAttemptAt,
            awaiting_manifest_since: decision.firstTime ? now : undefined,
          })
          .where('id', '=', tr.id)
          .execute();
        if (decision.firstTime) {
          await event('tracking_request.awaiting_manifest');
          recorded = true;
        }
        return;
      case 'succeed': {
        const shipmentId = await linkShipment(tx, tr);
        await tx
          .updateTable('tracking_requests')
          .set({
            ...done,
            status: 'created',
            shipment_id: shipmentId.id,
            failed_reason: null,
            is_retrying: false,
            next_attempt_at: null,
          })
          .where('id', '=', tr.id)
          .execute();
        await event('tracking_request.succeeded', shipmentId.id);
        await applySnapshot(tx, deps, {
          accountId: tr.account_id,
          shipmentId: shipmentId.id,
          trackingRequestId: tr.id,
          initial: shipmentId.created,
          snapshot: snapshot!,
          raw: raw.kind === 'found' ? raw.events : [],
          fingerprint:
            raw.kind === 'found' ? answerFingerprint(raw.events, tr.request_type, tr.request_number) : null,
          now,
        });
        recorded = true;
        return;
      }
    }
  });
  if (recorded) deps.onDomainEvents?.();
}

/** The account's shipment for this number: created, or reused (and resumed) from an earlier request. */
async function linkShipment(tx: Kysely<DB>, tr: ClaimedRequest): Promise<{ id: string; created: boolean }> {
  const existing = await tx
    .selectFrom('shipments')
    .select(['id', 'line_tracking_stopped_at'])
    .where('account_id', '=', tr.account_id)
    .where('scac', '=', tr.scac)
    .where('normalized_number', '=', tr.request_number)
    .forUpdate()
    .executeTakeFirst();
  if (existing) {
    await tx
      .updateTable('shipments')
      .set({
        ref_numbers: sql<string[]>`array(select distinct unnest(ref_numbers || ${tr.ref_numbers}::text[]))`,
        tags: sql<string[]>`array(select distinct unnest(tags || ${tr.shipment_tags}::text[]))`,
        line_tracking_stopped_at: null,
        line_tracking_stopped_reason: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', existing.id)
      .execute();
    return { id: existing.id, created: false };
  }
  const id = randomUUID();
  await tx
    .insertInto('shipments')
    .values({
      id,
      account_id: tr.account_id,
      scac: tr.scac,
      request_type: tr.request_type,
      normalized_number: tr.request_number,
      bill_of_lading_number: tr.request_number,
      ref_numbers: tr.ref_numbers,
      tags: tr.shipment_tags,
    })
    .execute();
  return { id, created: true };
}

interface SnapshotInput {
  accountId: string;
  shipmentId: string;
  trackingRequestId: string | null;
  initial: boolean;
  snapshot: NormalizedSnapshot;
  raw: unknown[];
  /** answerFingerprint() of `raw`, stored with the state built from it. */
  fingerprint: string | null;
  now: Date;
}

/** Diff, write, schedule the next refresh, and stop when the journey is over. */
async function applySnapshot(tx: Kysely<DB>, deps: EngineDeps, input: SnapshotInput): Promise<void> {
  const stored = input.initial
    ? { ...EMPTY_STATE, pod_original_eta_at: null, last_changed_at: null }
    : await loadStoredState(tx, input.shipmentId);
  const plan = diff(stored, snapshotFacts(input.snapshot, resolve), input.initial);
  await applyPlan(
    tx,
    {
      accountId: input.accountId,
      shipmentId: input.shipmentId,
      trackingRequestId: input.trackingRequestId,
      podOriginalEtaAt: stored.pod_original_eta_at,
      containerIds: new Map(stored.containers.map((c) => [c.number, c.id])),
    },
    plan,
  );
  await storeRawEvents(tx, input.accountId, input.shipmentId, input.raw);

  const lastChanged = plan.changed || input.initial ? input.now : (stored.last_changed_at ?? input.now);
  const timeline = timelineAfter(stored, plan);
  await tx
    .updateTable('shipments')
    .set({
      line_tracking_last_attempted_at: input.now,
      line_tracking_last_succeeded_at: input.now,
      last_changed_at: lastChanged,
      next_refresh_at: nextRefreshAt(timeline, input.now, deps.config.worker),
      refresh_failures: 0,
      engine_fingerprint: input.fingerprint,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: sql<Date>`now()`,
    })
    .where('id', '=', input.shipmentId)
    .execute();
  const reason = stopReason(
    { ...timeline, last_changed_at: lastChanged, booking_cancelled: input.snapshot.booking_cancelled },
    input.now,
    deps.config.worker,
  );
  if (reason) await stopShipmentTracking(tx, input.accountId, input.shipmentId, reason);
}

/**
 * The shipment's timeline once `plan` is written, from the state read before it and the plan
 * itself (what applyPlan writes), instead of reading back what was just written. Containers are
 * never deleted, so the stored ones, updated, plus the new ones are all of them.
 */
function timelineAfter(stored: StoredState, plan: Plan): ShipmentTimeline {
  const pick = (k: 'pod_eta_at' | 'pod_ata_at') =>
    (k in plan.shipment ? plan.shipment[k] : stored.shipment[k]) ?? null;
  const updates = new Map(plan.containerUpdates.map((u) => [u.id, u.changes]));
  const times = (f: Record<string, unknown>) => ({
    pod_full_out_at: (f.pod_full_out_at as string | null) ?? null,
    final_destination_full_out_at: (f.final_destination_full_out_at as string | null) ?? null,
    empty_terminated_at: (f.empty_terminated_at as string | null) ?? null,
  });
  return {
    pod_eta_at: pick('pod_eta_at'),
    pod_ata_at: pick('pod_ata_at'),
    containers: [
      ...stored.containers.map((c) => times({ ...c.facts, ...updates.get(c.id) })),
      ...plan.newContainers.map((c) => times(c.facts)),
    ],
  };
}

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

interface ReleaseBatch {
  items: Array<Release & { done(updated: boolean): void; fail(err: unknown): void }>;
  timer: NodeJS.Timeout;
}

// Unchanged refreshes that finish within a few milliseconds of each other are released together,
// in one statement (one round trip, one commit): answers arrive one by one, so releasing each
// on its own turn of the event loop would cost a round trip per refresh. The wait is nothing
// next to a refresh cadence, and the lease is held a few milliseconds longer.
const RELEASE_WINDOW_MS = 5;
const RELEASE_BATCH_MAX = 64;
const releaseBatches = new WeakMap<EngineDeps, ReleaseBatch>();

function releaseUnchanged(deps: EngineDeps, item: Release): Promise<boolean> {
  let batch = releaseBatches.get(deps);
  if (!batch) {
    const b: ReleaseBatch = { items: [], timer: setTimeout(() => flush(b), RELEASE_WINDOW_MS) };
    batch = b;
    releaseBatches.set(deps, b);
  }
  const { promise, resolve, reject } = Promise.withResolvers<boolean>();
  batch.items.push({ ...item, done: resolve, fail: reject });
  if (batch.items.length >= RELEASE_BATCH_MAX) flush(batch);
  return promise;

  function flush(b: ReleaseBatch) {
    clearTimeout(b.timer);
    if (releaseBatches.get(deps) === b) releaseBatches.delete(deps);
    void flushReleases(deps, b.items);
  }
}

async function flushReleases(deps: EngineDeps, items: ReleaseBatch['items']): Promise<void> {
  try {
    const r = await sql<{ id: string }>`
      select id from engine_release_unchanged(${deps.owner},
        ${items.map((i) => i.id)}::uuid[], ${items.map((i) => i.rowVersion)}::xid[],
        ${items.map((i) => i.attemptedAt)}::timestamptz[], ${items.map((i) => i.nextAt)}::timestamptz[]) as id`.execute(
      deps.db,
    );
    const updated = new Set(r.rows.map((x) => x.id));
    for (const i of items) i.done(updated.has(i.id));
  } catch (err) {
    for (const i of items) i.fail(err);
  }
}

/** One refresh of an active shipment. */
export async function processShipmentRefresh(deps: EngineDeps, s: ClaimedShipment): Promise<void> {
  const raw = await lookup(deps, s.scac, s.request_type, s.normalized_number);
  const now = deps.now?.() ?? new Date();
  const fingerprint =
    raw.kind === 'found' ? answerFingerprint(raw.events, s.request_type, s.normalized_number) : null;
  if (fingerprint !== null && fingerprint === s.engine_fingerprint && (await refreshUnchanged(deps, s, now)))
    return;
  const { result, snapshot } = readFound(raw, s.request_type, s.normalized_number);
  let recorded = false;
  await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, 'shipments', s.id, deps.owner);
    const release = {
      lease_owner: null,
      lease_expires_at: null,
      line_tracking_last_attempted_at: now,
      updated_at: sql<Date>`now()`,
    };
    if (result.kind === 'found' && snapshot) {
      await applySnapshot(tx, deps, {
        accountId: s.account_id,
        shipmentId: s.id,
        trackingRequestId: null,
        initial: false,
        snapshot,
        raw: raw.kind === 'found' ? raw.events : [],
        fingerprint,
        now,
      });
      recorded = true;
    } else if (result.kind === 'permanent_failure' && result.reason === 'booking_cancelled') {
      await tx.updateTable('shipments').set(release).where('id', '=', s.id).execute();
      await stopShipmentTracking(tx, s.account_id, s.id, 'booking_cancelled');
      recorded = true;
    } else if (result.kind === 'temporary_failure') {
      const failures = s.refresh_failures + 1;
      const delay = Math.min(
        Math.max(retryDelayMs(failures, deps.config.worker.retryBaseMs), result.retryAfterMs ?? 0),
        deps.config.worker.refreshIntervalMs,
      );
      await tx
        .updateTable('shipments')
        .set({ ...release, refresh_failures: failures, next_refresh_at: new Date(now.getTime() + delay) })
        .where('id', '=', s.id)
        .execute();
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
