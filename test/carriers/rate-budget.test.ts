import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRateBudget } from '../../src/carriers/rate-budget.ts';

/** A fake clock whose sleep advances time instantly, recording the waits. */
function fakeTime() {
  let now = 0;
  const sleeps: number[] = [];
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

describe('rate budget', () => {
  it('allows a small burst, then paces requests', async () => {
    const t = fakeTime();
    const budget = createRateBudget({
      requestsPerMinute: 100,
      maxWaitMs: 60_000,
      now: t.now,
      sleep: t.sleep,
    });
    // burst = 10, refill = 91 per minute
    for (let i = 0; i < 10; i++) assert.deepEqual(await budget.acquire(), { ok: true });
    assert.deepEqual(t.sleeps, []);
    assert.deepEqual(await budget.acquire(), { ok: true });
    assert.equal(t.sleeps.length, 1);
    assert.ok(Math.abs(t.sleeps[0]! - 60_000 / 91) < 2);
  });

  it('never exceeds requests_per_minute in any 60-second window', async () => {
    for (const rpm of [1, 10, 37, 150]) {
      const t = fakeTime();
      const budget = createRateBudget({
        requestsPerMinute: rpm,
        maxWaitMs: 120_000,
        now: t.now,
        sleep: t.sleep,
      });
      const stamps: number[] = [];
      for (let i = 0; i < rpm * 3 + 5; i++) {
        assert.equal((await budget.acquire()).ok, true);
        stamps.push(t.now());
      }
      for (let i = 0; i < stamps.length; i++) {
        const inWindow = stamps.filter((s) => s >= stamps[i]! && s < stamps[i]! + 60_000).length;
        assert.ok(inWindow <= rpm, `rpm ${rpm}: ${inWindow} requests in one minute`);
      }
    }
  });

  it('reports a temporary failure with a retry hint instead of waiting too long', async () => {
    const t = fakeTime();
    const budget = createRateBudget({ requestsPerMinute: 10, maxWaitMs: 1000, now: t.now, sleep: t.sleep });
    assert.deepEqual(await budget.acquire(), { ok: true });
    const r = await budget.acquire();
    assert.equal(r.ok, false);
    assert.equal((r as { retryAfterMs: number }).retryAfterMs, 6000);
    // The refused request did not consume budget: after 6 s one request goes through at once.
    t.advance(6000);
    assert.deepEqual(await budget.acquire(), { ok: true });
    assert.deepEqual(t.sleeps, []);
  });

  it('concurrent callers each reserve their own slot', async () => {
    const budget = createRateBudget({ requestsPerMinute: 600, burst: 1, maxWaitMs: 1000 });
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: 4 }, () => budget.acquire()));
    assert.ok(results.every((r) => r.ok));
    assert.ok(performance.now() - started >= 290, '4 requests at 10/s need ~300 ms');
  });

  it('an abort while waiting gives the slot back', async () => {
    let now = 0;
    const sleeps: number[] = [];
    const controller = new AbortController();
    const budget = createRateBudget({
      requestsPerMinute: 60,
      burst: 1,
      maxWaitMs: 5000,
      now: () => now,
      // The first wait is cut short by an abort; later waits pass normally.
      sleep: async (ms) => {
        sleeps.push(ms);
        if (sleeps.length === 1) controller.abort();
        else now += ms;
      },
    });
    assert.equal((await budget.acquire()).ok, true);
    assert.deepEqual(await budget.acquire(controller.signal), {
      ok: false,
      retryAfterMs: 0,
      reason: 'aborted',
    });
    assert.equal((await budget.acquire()).ok, true);
    // Had the aborted caller kept its slot, this wait would be two seconds.
    assert.deepEqual(sleeps, [1000, 1000]);
  });

  it('rejects a non-positive rate', () => {
    assert.throws(() => createRateBudget({ requestsPerMinute: 0 }), RangeError);
  });
});
