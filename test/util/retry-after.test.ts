import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRetryAfter } from '../../src/util/retry-after.ts';

// One reading of Retry-After for carrier lookups and webhook deliveries.

const S = 1000;
const M = 60 * S;

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  test('delay-seconds', () => {
    assert.equal(parseRetryAfter('120', now), 120 * S);
    assert.equal(parseRetryAfter(' 0 ', now), 0);
    assert.equal(parseRetryAfter(['7', '9'], now), 7 * S);
  });
  test('HTTP-date, relative to now, never negative', () => {
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now), 2 * M);
    assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', new Date(now)), 2 * M);
    assert.equal(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now), 0);
  });
  test('absent or malformed is null', () => {
    for (const v of [
      undefined,
      null,
      '',
      '  ',
      '-5',
      '1.5',
      'soon',
      '2026-01-01T00:02:00Z',
      'Foo, 99 Bar 2026 GMT',
    ]) {
      assert.equal(parseRetryAfter(v, now), null, String(v));
    }
  });
});

describe('parseRetryAfter: the carrier client cases', () => {
  test('seconds, HTTP-dates before and after now', () => {
    assert.equal(parseRetryAfter('5', 0), 5000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 4000), 6000);
    assert.equal(parseRetryAfter('Thu, 01 Jan 1970 00:00:10 GMT', 20_000), 0);
  });
  test('a huge delay is capped, not Infinity', () => {
    assert.ok(Number.isFinite(parseRetryAfter('9'.repeat(400), 0)));
  });
});
