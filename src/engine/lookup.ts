import { zoneOfLocode } from '../reference/data.ts';
import type { CarrierRecord, LookupContext, LookupResult, NumberType } from './carrier.ts';
import type { EngineDeps } from './deps.ts';
import { leaseBound, untilAborted } from './lease-bound.ts';
import { normalize } from './normalize.ts';
import type { NormalizedSnapshot } from './types.ts';

// Asking a carrier, and reading what it answered: the engine's only contact with adapters.

export async function lookup(
  deps: EngineDeps,
  scac: string,
  type: NumberType,
  number: string,
  context?: LookupContext,
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
  const bound = leaseBound(deps.config.worker.leaseMs, deps.shutdown);
  let cut: ReturnType<typeof bound.cause> = null;
  // Cut short, the look-up is a transient failure retried later, never "not found".
  const aborted = (): LookupResult => {
    cut = bound.cause() ?? 'lease';
    return {
      kind: 'temporary_failure',
      reason: 'shipping_line_unreachable',
      detail:
        cut === 'shutdown'
          ? 'lookup aborted: the worker is stopping'
          : 'lookup aborted: no answer within half the lease',
    };
  };
  let result: LookupResult;
  try {
    result = await untilAborted(adapter.lookup(type, number, bound.signal, context), bound.signal, aborted);
  } catch (err) {
    deps.log.error({ err, scac }, 'carrier adapter threw');
    result = { kind: 'temporary_failure', reason: 'internal_processing_error', detail: 'adapter error' };
  }
  if (cut) {
    deps.log.warn({ scac, cause: cut, number }, 'carrier lookup aborted; retried later');
    deps.onLookupAborted?.('carrier', cut);
  }
  deps.onCarrierCall?.(scac, result.kind, (performance.now() - started) / 1000);
  return result;
}

/** The records of a found answer (what is stored as raw events), else none. */
export function recordsOf(result: LookupResult): CarrierRecord[] {
  return result.kind === 'found' ? result.snapshot.records : [];
}

/** Reads the carrier's answer; a found answer with nothing we can read is unrecognised. */
export function readFound(
  result: LookupResult,
  type: NumberType,
  number: string,
): { result: LookupResult; snapshot: NormalizedSnapshot | null } {
  if (result.kind !== 'found') return { result, snapshot: null };
  const snapshot = normalize(result.snapshot, { numberType: type, number, zoneOf: zoneOfLocode });
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
