// Retry schedule and webhook deactivation rule. Pure: the clock and randomness come in as arguments.
// WEBHOOK_RETRY_SCHEDULE is parsed on the config side (parseScheduleConfig in config-readers.ts).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Delays before retries 1..12: with the first attempt, at most 13 attempts over about 3.2 days. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [
  5 * SECOND,
  30 * SECOND,
  2 * MINUTE,
  5 * MINUTE,
  30 * MINUTE,
  1 * HOUR,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  14 * HOUR,
  20 * HOUR,
  24 * HOUR,
];
export const DEFAULT_JITTER = 0.1;
/** A receiver's Retry-After can push a retry later, but never beyond this (a bad header must not park it). */
export const MAX_RETRY_AFTER_MS = DAY;

export interface NextDelayOptions {
  scheduleMs: readonly number[];
  /** Fraction: the delay is drawn uniformly from base * [1 - jitter, 1 + jitter], spreading retry bursts. */
  jitter: number;
  /** Returns [0, 1); Math.random by default. */
  random?: () => number;
  /** From the failed attempt's Retry-After (see util/retry-after.ts), if any. */
  retryAfterMs?: number | null;
  maxRetryAfterMs?: number;
}

/**
 * Delay in ms before the next attempt, after `attemptsMade` attempts (>= 1) all failed; null when the schedule
 * is used up (the notification is then `failed`). A Retry-After longer than the scheduled delay wins, capped.
 */
export function nextAttemptDelayMs(attemptsMade: number, opts: NextDelayOptions): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) {
    throw new RangeError(`attemptsMade must be an integer >= 1, got ${attemptsMade}`);
  }
  if (!(opts.jitter >= 0 && opts.jitter < 1))
    throw new RangeError(`jitter must be in [0, 1), got ${opts.jitter}`);
  const base = opts.scheduleMs[attemptsMade - 1];
  if (base === undefined) return null;
  const r = (opts.random ?? Math.random)();
  const delay = Math.round(base * (1 + opts.jitter * (2 * r - 1)));
  const retryAfter = Math.min(opts.retryAfterMs ?? 0, opts.maxRetryAfterMs ?? MAX_RETRY_AFTER_MS);
  return Math.max(delay, retryAfter);
}

export interface DeliveryHealth {
  /** Start of the current failure streak (first failed attempt after the last success); null if none. */
  firstFailureAt: Date | number | null;
  lastSuccessAt: Date | number | null;
  lastFailureAt: Date | number | null;
  now: Date | number;
  /** The attempt just made got 410 Gone: the receiver says the endpoint is gone for good. */
  status410: boolean;
}

export interface DeactivationRule {
  failingForMs: number;
  minSpanMs: number;
}

export const DEFAULT_DEACTIVATION_RULE: DeactivationRule = { failingForMs: 5 * DAY, minSpanMs: 12 * HOUR };

const ms = (t: Date | number): number => (typeof t === 'number' ? t : t.getTime());

/**
 * Deactivate a webhook when:
 * - the receiver answered 410 Gone (an explicit "stop"), or
 * - every attempt since `firstFailureAt` failed (no success at or after it), that streak is at least
 *   `failingForMs` old, and the failures themselves span at least `minSpanMs`.
 * The span condition keeps a webhook alive whose only failures were one burst long ago (say a single outage
 * followed by no traffic): we only give up on an endpoint we have actually seen failing over a long stretch.
 */
export function shouldDeactivate(
  h: DeliveryHealth,
  rule: DeactivationRule = DEFAULT_DEACTIVATION_RULE,
): boolean {
  if (h.status410) return true;
  if (h.firstFailureAt === null || h.lastFailureAt === null) return false;
  const first = ms(h.firstFailureAt);
  if (h.lastSuccessAt !== null && ms(h.lastSuccessAt) >= first) return false;
  return ms(h.now) - first >= rule.failingForMs && ms(h.lastFailureAt) - first >= rule.minSpanMs;
}
