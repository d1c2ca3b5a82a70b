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
import { diff, type Resolve, type StoredState, snapshotFacts } from './diff.ts';
import { decideRequest, nextRefreshAt, retryDelayMs, stopReason } from './lifecycle.ts';
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
  now: Date;
}

/** Diff, write, schedule the next refresh, and stop when the journey is over. */
async function applySnapshot(tx: Kysely<DB>, deps: EngineDeps, input: SnapshotInput): Promise<void> {
  const stored = input.initial
    ? { ...EMPTY_STATE, pod_original_eta_at: null }
    : await loadStoredState(tx, input.shipmentId);
  const plan = diff(stored, snapshotFacts(input.snapshot, resolve), input.initial);
  await applyPlan(
    tx,
    {
      accountId: input.accountId,
      shipmentId: input.shipmentId,
      trackingRequestId: input.trackingRequestId,
      podOriginalEtaAt: stored.pod_original_eta_at,
    },
    plan,
  );
  await storeRawEvents(tx, input.accountId, input.shipmentId, input.raw);

  const s = await tx
    .selectFrom('shipments')
    .select(['pod_eta_at', 'pod_ata_at', 'last_changed_at'])
    .where('id', '=', input.shipmentId)
    .executeTakeFirstOrThrow();
  const containers = await tx
    .selectFrom('containers')
    .select(['pod_full_out_at', 'final_destination_full_out_at', 'empty_terminated_at'])
    .where('shipment_id', '=', input.shipmentId)
    .execute();
  const lastChanged = plan.changed || input.initial ? input.now : (s.last_changed_at ?? input.now);
  const timeline = {
    pod_eta_at: iso(s.pod_eta_at),
    pod_ata_at: iso(s.pod_ata_at),
    containers: containers.map((c) => ({
      pod_full_out_at: iso(c.pod_full_out_at),
      final_destination_full_out_at: iso(c.final_destination_full_out_at),
      empty_terminated_at: iso(c.empty_terminated_at),
    })),
  };
  await tx
    .updateTable('shipments')
    .set({
      line_tracking_last_attempted_at: input.now,
      line_tracking_last_succeeded_at: input.now,
      last_changed_at: lastChanged,
      next_refresh_at: nextRefreshAt(timeline, input.now, deps.config.worker),
      refresh_failures: 0,
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

/** One refresh of an active shipment. */
export async function processShipmentRefresh(deps: EngineDeps, s: ClaimedShipment): Promise<void> {
  const raw = await lookup(deps, s.scac, s.request_type, s.normalized_number);
  const { result, snapshot } = readFound(raw, s.request_type, s.normalized_number);
  const now = deps.now?.() ?? new Date();
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
