import type { CarrierSnapshot, NumberType } from './snapshot.ts';

// The port every carrier connection implements (src/carriers/ holds the adapters). Adapters do
// the network I/O and read their protocol into a CarrierSnapshot; turning that into our records
// is the engine's (pure) job.

export type { CarrierRecord, CarrierSnapshot, NumberType } from './snapshot.ts';

/** Failure reasons a lookup can report (the tracking request's `failed_reason` values). */
export type TemporaryFailure =
  | 'shipping_line_unreachable'
  | 'unrecognized_response'
  | 'internal_processing_error';
// `not_found` here means "fail now, whatever the number type" (the sandbox's TEST-TR-FAILED).
export type PermanentFailure = 'invalid_number' | 'booking_cancelled' | 'data_unavailable' | 'not_found';

export type LookupResult =
  /** The carrier knows the number; `snapshot` is its answer, read by the adapter. */
  | { kind: 'found'; snapshot: CarrierSnapshot }
  /** The carrier does not know the number (404, 400 for an unknown reference, or an empty list). */
  | { kind: 'not_found' }
  | { kind: 'temporary_failure'; reason: TemporaryFailure; detail: string; retryAfterMs?: number }
  | { kind: 'permanent_failure'; reason: PermanentFailure; detail: string };

/** What else is known about the number looked up, for carriers that want two references at once. */
export interface LookupContext {
  /** The request's (or shipment's) ref_numbers: the container numbers among them count. */
  references: readonly string[];
}

export interface CarrierAdapter {
  /** SCAC this connection serves. */
  readonly scac: string;
  /** Number types this connection can look up. */
  readonly numberTypes: readonly NumberType[];
  /** Look a number up at the carrier. Must never throw: every problem is a LookupResult. */
  lookup(
    numberType: NumberType,
    number: string,
    signal?: AbortSignal,
    context?: LookupContext,
  ): Promise<LookupResult>;
}
