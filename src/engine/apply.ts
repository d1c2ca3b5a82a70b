import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { terminalBySmdg } from '../reference/data.ts';
import type { CarrierRecord } from './carrier.ts';
import type { EngineDeps } from './deps.ts';
import { diff, type Plan, type Resolve, type StoredState, snapshotFacts } from './diff.ts';
import { nextRefreshAt, type ShipmentTimeline, stopReason } from './lifecycle.ts';
import { stopShipmentTracking } from './line-tracking.ts';
import { emptySnapshot } from './normalize.ts';
import { storeRawEvents } from './raw-events.ts';
import { applyPlan, loadStoredState } from './store.ts';
import type { NormalizedSnapshot } from './types.ts';

// Writing a normalized snapshot over a shipment's stored state, inside the caller's transaction:
// shared by the first answer of a tracking request and by every refresh.

const resolve: Resolve = {
  terminalId: (ref) => (ref ? (terminalBySmdg(ref.port_locode, ref.smdg_code)?.id ?? null) : null),
};

/** A shipment with nothing known yet: what the first snapshot is diffed against. */
export const EMPTY_STATE: StoredState = {
  shipment: snapshotFacts(emptySnapshot(0, 0), resolve).shipment,
  containers: [],
};

export interface SnapshotInput {
  accountId: string;
  shipmentId: string;
  trackingRequestId: string | null;
  initial: boolean;
  snapshot: NormalizedSnapshot;
  /** The carrier's records, stored as raw events. */
  raw: readonly CarrierRecord[];
  /** answerFingerprint() of the answer, stored with the state built from it. */
  fingerprint: string | null;
  now: Date;
}

/** Diff, write, schedule the next refresh, and stop when the journey is over. */
export async function applySnapshot(tx: Kysely<DB>, deps: EngineDeps, input: SnapshotInput): Promise<void> {
  const stored = input.initial
    ? {
        ...EMPTY_STATE,
        pod_original_eta_at: null,
        pol_original_etd_at: null,
        destination_original_eta_at: null,
        last_changed_at: null,
      }
    : await loadStoredState(tx, input.shipmentId);
  const plan = diff(stored, snapshotFacts(input.snapshot, resolve), input.initial);
  const lastChanged = plan.changed || input.initial ? input.now : (stored.last_changed_at ?? input.now);
  const timeline = timelineAfter(stored, plan);
  await applyPlan(
    tx,
    {
      accountId: input.accountId,
      shipmentId: input.shipmentId,
      trackingRequestId: input.trackingRequestId,
      podOriginalEtaAt: stored.pod_original_eta_at,
      polOriginalEtdAt: stored.pol_original_etd_at,
      destinationOriginalEtaAt: stored.destination_original_eta_at,
      containerIds: new Map(stored.containers.map((c) => [c.number, c.id])),
      // The attempt's bookkeeping goes in the same UPDATE as the plan's shipment facts: one
      // statement instead of two (the timeline is the plan's, known before it is written).
      shipmentBookkeeping: {
        line_tracking_last_attempted_at: input.now,
        line_tracking_last_succeeded_at: input.now,
        last_changed_at: lastChanged,
        next_refresh_at: nextRefreshAt(timeline, input.now, deps.config.worker),
        refresh_failures: 0,
        engine_fingerprint: input.fingerprint,
        lease_owner: null,
        lease_expires_at: null,
        // updated_at moves only with the shipment's data: a refresh that found nothing new leaves
        // it (and, through migrations/0021, the account's cached responses) alone.
        ...(plan.changed || input.initial ? { updated_at: sql<Date>`now()` } : {}),
      },
    },
    plan,
  );
  await storeRawEvents(tx, input.accountId, input.shipmentId, input.raw);

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
      // A container stopped on its own no longer decides when the shipment is refreshed or stops.
      ...stored.containers.filter((c) => !c.stopped).map((c) => times({ ...c.facts, ...updates.get(c.id) })),
      ...plan.newContainers.map((c) => times(c.facts)),
    ],
  };
}
