// The SIMFLAKY scenario's failure schedule, by the number's request count (1-based), so a test
// knows exactly which failure its n-th request meets and a retrying client eventually succeeds.

export type FlakyOutcome = 'hang' | 'unavailable' | 'rate_limited' | 'malformed' | 'server_error' | 'ok';

export const FLAKY_CYCLE: readonly FlakyOutcome[] = [
  'hang', // no answer for longer than any sane client time-out
  'unavailable', // 503
  'rate_limited', // 429 with Retry-After
  'malformed', // 200 with a truncated JSON body
  'server_error', // 500
  'ok',
  'ok',
  'ok',
];

export function flakyOutcome(requestCount: number): FlakyOutcome {
  return FLAKY_CYCLE[(Math.max(1, requestCount) - 1) % FLAKY_CYCLE.length]!;
}

/** Seconds a rate-limited SIMFLAKY answer asks the client to wait. */
export const FLAKY_RETRY_AFTER_SECONDS = 2;
