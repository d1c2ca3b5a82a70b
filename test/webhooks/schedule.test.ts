import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseScheduleConfig } from '../../src/config/readers.ts';
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_RETRY_AFTER_MS,
  nextAttemptDelayMs,
  shouldDeactivate,
} from '../../src/webhooks/delivery/schedule.ts';
import fc from '../helpers/fast-check.ts';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('retry schedule', () => {
  test('default delays are exact with no jitter', () => {
    assert.deepEqual(
      [...DEFAULT_RETRY_SCHEDULE_MS],
      [5 * S, 30 * S, 2 * M, 5 * M, 30 * M, H, 2 * H, 5 * H, 10 * H, 14 * H, 20 * H, 24 * H],
    );
    const delays = DEFAULT_RETRY_SCHEDULE_MS.map((_, i) =>
      nextAttemptDelayMs(i + 1, { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, jitter: 0 }),
    );
    assert.deepEqual(delays, [...DEFAULT_RETRY_SCHEDULE_MS]);
  });

  test('at most 13 attempts: 1 + 12 retries, then null', () => {
    let attempts = 1;
    while (nextAttemptDelayMs(attempts, { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, jitter: 0.1 }) !== null)
      attempts++;
    assert.equal(attempts, 13);
    assert.equal(nextAttemptDelayMs(14, { scheduleMs: DEFAULT_RETRY_SCHEDULE_MS, jitter: 0 }), null);
  });

  test('jitter stays within +-fraction, and reaches both ends', () => {
    const opts = (r: number) => ({ scheduleMs: [10 * S], jitter: 0.1, random: () => r });
    assert.equal(nextAttemptDelayMs(1, opts(0)), 9 * S);
    assert.equal(nextAttemptDelayMs(1, opts(0.5)), 10 * S);
    assert.equal(nextAttemptDelayMs(1, opts(0.999999)), 11 * S);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const base = DEFAULT_RETRY_SCHEDULE_MS[n - 1]!;
          const d = nextAttemptDelayMs(n, {
            scheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
            jitter: 0.1,
            random: () => r,
          })!;
          assert.ok(d >= base * 0.9 - 1 && d <= base * 1.1 + 1, `${d} vs ${base}`);
        },
      ),
    );
  });

  test('Retry-After wins when longer, is capped, and never shortens the schedule', () => {
    const base = { scheduleMs: [5 * S, 30 * S], jitter: 0 };
    assert.equal(nextAttemptDelayMs(1, { ...base, retryAfterMs: 60 * S }), 60 * S);
    assert.equal(nextAttemptDelayMs(1, { ...base, retryAfterMs: 1 * S }), 5 * S);
    assert.equal(nextAttemptDelayMs(1, { ...base, retryAfterMs: 10 * D }), MAX_RETRY_AFTER_MS);
    assert.equal(nextAttemptDelayMs(1, { ...base, retryAfterMs: 10 * D, maxRetryAfterMs: H }), H);
    assert.equal(nextAttemptDelayMs(2, { ...base, retryAfterMs: null }), 30 * S);
    // Retry-After does not add attempts.
    assert.equal(nextAttemptDelayMs(3, { ...base, retryAfterMs: 60 * S }), null);
  });

  test('bad arguments throw', () => {
    assert.throws(() => nextAttemptDelayMs(0, { scheduleMs: [1], jitter: 0 }), RangeError);
    assert.throws(() => nextAttemptDelayMs(1.5, { scheduleMs: [1], jitter: 0 }), RangeError);
    assert.throws(() => nextAttemptDelayMs(1, { scheduleMs: [1], jitter: 1 }), RangeError);
    assert.throws(() => nextAttemptDelayMs(1, { scheduleMs: [1], jitter: -0.1 }), RangeError);
  });
});

describe('parseScheduleConfig', () => {
  test('parses the default and ms schedules', () => {
    assert.deepEqual(parseScheduleConfig('5s,30s,2m,5m,30m,1h,2h,5h,10h,14h,20h,24h'), [
      ...DEFAULT_RETRY_SCHEDULE_MS,
    ]);
    assert.deepEqual(parseScheduleConfig('10ms, 20ms'), [10, 20]);
    assert.deepEqual(parseScheduleConfig('1.5s,1d'), [1500, D]);
  });
  test('precise errors', () => {
    assert.throws(() => parseScheduleConfig(''), /empty/);
    assert.throws(() => parseScheduleConfig('5s,,30s'), /entry 2 is empty/);
    assert.throws(() => parseScheduleConfig('5s,'), /entry 2 is empty/);
    assert.throws(() => parseScheduleConfig('5s,30x'), /entry 2 "30x" is not a duration/);
    assert.throws(() => parseScheduleConfig('5'), /entry 1 "5" is not a duration/);
    assert.throws(() => parseScheduleConfig('-5s'), /entry 1 "-5s" is not a duration/);
    assert.throws(() => parseScheduleConfig('0s'), /entry 1 "0s" must be at least 1ms/);
    assert.throws(() => parseScheduleConfig('8d'), /entry 1 "8d" exceeds/);
    assert.throws(() => parseScheduleConfig(Array(101).fill('1s').join(',')), /101 entries/);
  });
});

describe('shouldDeactivate', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  const base = {
    firstFailureAt: t0,
    lastSuccessAt: t0 - D,
    lastFailureAt: t0 + D,
    now: t0 + 5 * D,
    status410: false,
  };

  test('410 Gone deactivates at once', () => {
    assert.equal(
      shouldDeactivate({ ...base, firstFailureAt: null, lastFailureAt: null, status410: true }),
      true,
    );
  });
  test('failing for 5 days with failures spanning 12 h deactivates', () => {
    assert.equal(shouldDeactivate(base), true);
    assert.equal(shouldDeactivate({ ...base, lastSuccessAt: null }), true);
    assert.equal(shouldDeactivate({ ...base, lastFailureAt: t0 + 12 * H }), true);
    // Dates work as well as numbers.
    assert.equal(
      shouldDeactivate({ ...base, firstFailureAt: new Date(t0), now: new Date(t0 + 5 * D) }),
      true,
    );
  });
  test('not yet 5 days', () => {
    assert.equal(shouldDeactivate({ ...base, now: t0 + 5 * D - 1 }), false);
  });
  test('failures all in one short burst', () => {
    assert.equal(shouldDeactivate({ ...base, lastFailureAt: t0 + 12 * H - 1 }), false);
  });
  test('a success since the streak began', () => {
    assert.equal(shouldDeactivate({ ...base, lastSuccessAt: t0 + 2 * D }), false);
    assert.equal(shouldDeactivate({ ...base, lastSuccessAt: t0 }), false);
  });
  test('no failures', () => {
    assert.equal(shouldDeactivate({ ...base, firstFailureAt: null, lastFailureAt: null }), false);
  });
  test('custom rule', () => {
    const rule = { failingForMs: 100, minSpanMs: 10 };
    assert.equal(
      shouldDeactivate(
        { firstFailureAt: 0, lastSuccessAt: null, lastFailureAt: 10, now: 100, status410: false },
        rule,
      ),
      true,
    );
    assert.equal(
      shouldDeactivate(
        { firstFailureAt: 0, lastSuccessAt: null, lastFailureAt: 9, now: 100, status410: false },
        rule,
      ),
      false,
    );
  });
});
