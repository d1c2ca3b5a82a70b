import type { Config } from '../config.ts';
import type { LookupResult, NumberType } from './carrier.ts';

// Pure decisions of the tracking lifecycle: what a look-up result means for a tracking request,
// when to try again, when a shipment is refreshed next, and when tracking stops.

export type WorkerConfig = Config['worker'];

export type RequestDecision =
  | { kind: 'succeed' }
  | { kind: 'await_manifest'; nextAttemptAt: Date; firstTime: boolean }
  | { kind: 'retry'; nextAttemptAt: Date; retryCount: number; reason: string }
  | { kind: 'fail'; reason: string };

const MAX_RETRY_DELAY_MS = 12 * 3_600_000;

/** Exponential back-off: base, 2×base, 4×base … capped at 12 h (retry n is 1-based). */
export function retryDelayMs(retry: number, baseMs: number): number {
  return Math.min(baseMs * 2 ** Math.max(0, retry - 1), MAX_RETRY_DELAY_MS);
}

export function decideRequest(
  tr: { request_type: NumberType; retry_count: number | null; awaiting_manifest_since: Date | null },
  result: LookupResult,
  now: Date,
  cfg: WorkerConfig,
): RequestDecision {
  switch (result.kind) {
    case 'found':
      return { kind: 'succeed' };
    case 'permanent_failure':
      return { kind: 'fail', reason: result.reason };
    case 'not_found': {
      // Containers are either known to the carrier or not; documents may not be manifested yet.
      if (tr.request_type === 'container') return { kind: 'fail', reason: 'not_found' };
      const since = tr.awaiting_manifest_since ?? now;
      if (now.getTime() - since.getTime() >= cfg.awaitingManifestMaxMs)
        return { kind: 'fail', reason: 'not_found' };
      return {
        kind: 'await_manifest',
        nextAttemptAt: new Date(now.getTime() + cfg.awaitingManifestIntervalMs),
        firstTime: tr.awaiting_manifest_since === null,
      };
    }
    case 'temporary_failure': {
      const retryCount = (tr.retry_count ?? 0) + 1;
      if (retryCount > cfg.retryMax) return { kind: 'fail', reason: 'retries_exhausted' };
      const delay = Math.max(retryDelayMs(retryCount, cfg.retryBaseMs), result.retryAfterMs ?? 0);
      return {
        kind: 'retry',
        nextAttemptAt: new Date(now.getTime() + delay),
        retryCount,
        reason: result.reason,
      };
    }
  }
}

export interface ShipmentTimeline {
  pod_eta_at: string | null;
  pod_ata_at: string | null;
  containers: Array<{
    pod_full_out_at: string | null;
    final_destination_full_out_at: string | null;
    empty_terminated_at: string | null;
  }>;
}

const NEAR_ARRIVAL_MS = 3 * 86_400_000;

/** Tighter cadence from three days before arrival until every container has been picked up. */
export function nextRefreshAt(t: ShipmentTimeline, now: Date, cfg: WorkerConfig): Date {
  const eta = t.pod_eta_at ? Date.parse(t.pod_eta_at) : null;
  const arrived = t.pod_ata_at !== null;
  const allOut =
    t.containers.length > 0 &&
    t.containers.every((c) => c.pod_full_out_at || c.final_destination_full_out_at);
  const near = (!arrived && eta !== null && eta - now.getTime() <= NEAR_ARRIVAL_MS) || (arrived && !allOut);
  return new Date(now.getTime() + (near ? cfg.refreshNearArrivalMs : cfg.refreshIntervalMs));
}

export type StopReason =
  | 'all_containers_terminated'
  | 'past_arrival_window'
  | 'past_full_out_window'
  | 'no_updates_at_line'
  | 'booking_cancelled';

/** Why tracking at the line should stop now, or null to keep going. */
export function stopReason(
  t: ShipmentTimeline & { last_changed_at: Date | null; booking_cancelled: boolean },
  now: Date,
  cfg: WorkerConfig,
): StopReason | null {
  if (t.booking_cancelled) return 'booking_cancelled';
  const n = now.getTime();
  if (t.containers.length > 0 && t.containers.every((c) => c.empty_terminated_at))
    return 'all_containers_terminated';
  const outs = t.containers.map((c) => c.final_destination_full_out_at ?? c.pod_full_out_at);
  if (outs.length > 0 && outs.every((o) => o !== null)) {
    const last = Math.max(...outs.map((o) => Date.parse(o!)));
    if (n - last >= cfg.fullOutWindowMs) return 'past_full_out_window';
  }
  if (t.pod_ata_at && n - Date.parse(t.pod_ata_at) >= cfg.arrivalWindowMs) return 'past_arrival_window';
  if (t.last_changed_at && n - t.last_changed_at.getTime() >= cfg.noUpdatesWindowMs)
    return 'no_updates_at_line';
  return null;
}
