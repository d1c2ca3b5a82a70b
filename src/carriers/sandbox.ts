import {
  FLAKY_RETRY_AFTER_SECONDS,
  flakyOutcome,
  limitJourneyCache,
  lookupNumber,
  TEST_NUMBERS,
} from '../../sim/library.ts';
import { dcsaSnapshot } from './dcsa/snapshot.ts';
import type { CarrierAdapter, LookupResult, NumberType } from './types.ts';

// The sandbox line (SCAC TEST), answering in-process from the simulator's scenario library
// (sim/library.ts, its one entry point for the product; the scenarios speak DCSA, read here by the
// DCSA adapter's pure snapshot builder): the
// published test numbers TEST-TR-SUCCEEDED / TEST-TR-FAILED plus every SIM... scenario number
// (docs/simulator.md). No HTTP, so it works in any install without a simulator running.

export interface SandboxOptions {
  /** The sandbox's notion of "now" (default: real time). */
  clock?: () => Date;
  /**
   * Anchor of the scenario journeys (default: the start of the UTC day of the first clock
   * reading, so a restart on the same day replays the same journeys). TEST-TR-SUCCEEDED is
   * delivered before the epoch with its empty return a day after it, so the voyage is visible at once and tracking goes on.
   */
  epoch?: Date;
}

/** TEST-TR-SUCCEEDED and TEST-TR-FAILED: the reference's sandbox takes them as any number type. */
export const SANDBOX_TEST_NUMBERS: ReadonlySet<string> = new Set(TEST_NUMBERS);

const NUMBER_TYPES: readonly NumberType[] = ['bill_of_lading', 'booking_number', 'container'];

/**
 * Built journeys the scenario library keeps for the sandbox (~30 KB of heap each). The library's
 * own bound (10,000) is the simulator program's; inside the service, under `npm start`'s 160 MB
 * heap cap, the ~3,000 journeys of a mixed benchmark run held ~100 MB and the process ran out of
 * heap (docs/benchmarks.md, throughput). A journey is built once per new number anyway; only a
 * refresh of an evicted one builds it again (the same journey).
 */
const JOURNEYS_KEPT = 200;
const DAY = 86_400_000;

export function createSandboxAdapter(options: SandboxOptions = {}): CarrierAdapter {
  limitJourneyCache(JOURNEYS_KEPT);
  const clock = options.clock ?? (() => new Date());
  const epochMs = options.epoch ? options.epoch.getTime() : Math.floor(clock().getTime() / DAY) * DAY;
  // Request counts per SIMFLAKY number: the same failure schedule as the HTTP simulator.
  const flakyCounts = new Map<string, number>();

  async function lookup(numberType: NumberType, number: string, signal?: AbortSignal): Promise<LookupResult> {
    if (signal?.aborted) return unreachable('lookup aborted before it started');
    const answer = lookupNumber(numberType, number, { now: clock(), epoch: epochMs });
    if (answer.kind === 'failure')
      return { kind: 'permanent_failure', reason: 'not_found', detail: answer.detail };
    if (answer.kind === 'not_found') return { kind: 'not_found' };
    const { shipment } = answer;
    // Cancellation is decided here rather than by the engine's normalizer: the sandbox reports
    // what a carrier's cancelled booking means for the request, a permanent failure.
    if (shipment.cancelled) {
      return {
        kind: 'permanent_failure',
        reason: 'booking_cancelled',
        detail: `booking ${shipment.booking} was cancelled (SHIPMENT event CANC)`,
      };
    }
    if (shipment.flaky) {
      const key = number.trim().toUpperCase();
      const count = (flakyCounts.get(key) ?? 0) + 1;
      flakyCounts.set(key, count);
      const failure = flakyFailure(count);
      if (failure) return failure;
    }
    // Callers may keep or change what they get; the library's cached journey must stay intact.
    return { kind: 'found', snapshot: dcsaSnapshot(structuredClone(answer.events)) };
  }

  return {
    scac: 'TEST',
    numberTypes: NUMBER_TYPES,
    async lookup(numberType, number, signal) {
      try {
        return await lookup(numberType, number, signal);
      } catch (err) {
        return {
          kind: 'temporary_failure',
          reason: 'internal_processing_error',
          detail: `sandbox error: ${err instanceof Error ? err.message : String(err)}`,
        };
      }
    },
  };
}

function unreachable(detail: string, retryAfterMs?: number): LookupResult {
  return {
    kind: 'temporary_failure',
    reason: 'shipping_line_unreachable',
    detail,
    ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
  };
}

function flakyFailure(count: number): LookupResult | undefined {
  switch (flakyOutcome(count)) {
    case 'hang':
      return unreachable('carrier did not answer before the time-out');
    case 'unavailable':
      return unreachable('carrier answered 503 Service Unavailable');
    case 'rate_limited':
      return unreachable('carrier answered 429 Too Many Requests', FLAKY_RETRY_AFTER_SECONDS * 1000);
    case 'malformed':
      return {
        kind: 'temporary_failure',
        reason: 'unrecognized_response',
        detail: 'carrier sent malformed JSON',
      };
    case 'server_error':
      return unreachable('carrier answered 500 Internal Server Error');
    default:
      return undefined;
  }
}
