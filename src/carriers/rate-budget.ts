// Per-connection request budget: a small token bucket sized so that no 60-second window ever
// carries more than `requestsPerMinute` requests (carrier limits such as Hapag's 10/min are
// per rolling minute). A burst of b tokens plus a refill of (rpm - b + 1) per minute gives at most
// b + (rpm - b + 1) - 1 = rpm requests in any half-open minute.
//
// Reservations make it safe under concurrency without a queue: each caller takes a token at once
// (the balance may go negative) and waits until its token exists. A caller whose wait would be
// longer than `maxWaitMs` gets its token back and a temporary failure with a retry hint.

export type BudgetResult =
  | { ok: true }
  | { ok: false; retryAfterMs: number; reason: 'exhausted' | 'aborted' };

export interface RateBudget {
  /** Takes one request's worth of budget, waiting up to maxWaitMs. Never throws. */
  acquire(signal?: AbortSignal): Promise<BudgetResult>;
}

export interface RateBudgetOptions {
  requestsPerMinute: number;
  /** Longest a request may wait for budget before reporting a temporary failure (default 5 s). */
  maxWaitMs?: number;
  /** Burst size (default: a tenth of the per-minute rate, at least 1). */
  burst?: number;
  /** Milliseconds clock (injectable for tests). */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Sleeps `ms`, resolving early (never rejecting) when the signal aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  });
}

export function createRateBudget(options: RateBudgetOptions): RateBudget {
  const rpm = options.requestsPerMinute;
  if (!(rpm > 0) || !Number.isFinite(rpm))
    throw new RangeError('requestsPerMinute must be a positive number');
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  const maxWaitMs = options.maxWaitMs ?? 5_000;
  const burst = Math.max(1, Math.min(options.burst ?? Math.floor(rpm / 10), Math.max(1, Math.floor(rpm))));
  // Below one request a minute the burst formula degenerates; then simply pace at rpm.
  const perMs = (rpm >= burst ? rpm - burst + 1 : rpm) / 60_000;
  let tokens = burst;
  let last = now();

  const refill = () => {
    const t = now();
    tokens = Math.min(burst, tokens + (t - last) * perMs);
    last = t;
  };

  return {
    async acquire(signal) {
      refill();
      tokens -= 1;
      if (tokens >= 0) return { ok: true };
      const waitMs = Math.ceil(-tokens / perMs);
      if (waitMs > maxWaitMs) {
        tokens += 1;
        return { ok: false, retryAfterMs: waitMs, reason: 'exhausted' };
      }
      await sleep(waitMs, signal);
      if (signal?.aborted) {
        refill();
        tokens = Math.min(burst, tokens + 1);
        return { ok: false, retryAfterMs: 0, reason: 'aborted' };
      }
      return { ok: true };
    },
  };
}
