import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { createBackoff } from '../db/connection-errors.ts';
import { LeaseLost } from './leases.ts';
import { createWaker } from './waker.ts';

// A small work loop: claim up to the free capacity, run each item, and sleep until the poll
// interval passes or something wakes it. Several loops (tracking requests, refreshes, webhook
// deliveries) run side by side in one worker process, each with its own capacity; webhook delivery
// runs its own scheduler (webhooks/delivery/loop.ts) on the same waker, back-off and leases.
// A claim that fails (the database is down or fails over) is retried after a back-off that grows
// to CLAIM_BACKOFF_MAX_MS, so an outage costs a log line every few seconds, not a busy loop; the
// first claim that succeeds resumes the normal pace. Items whose run failed keep their lease until
// it expires and are then claimed again, by this worker or another: nothing is lost.

/** The longest pause between claims while they fail: also the worst delay after an outage ends. */
export const CLAIM_BACKOFF_MAX_MS = 2000;

/** The back-off between failing claims of a loop polling every `pollIntervalMs`. */
export function claimBackoff(pollIntervalMs: number): ReturnType<typeof createBackoff> {
  return createBackoff(Math.max(pollIntervalMs, 50), CLAIM_BACKOFF_MAX_MS);
}

export interface LoopSpec<T> {
  name: string;
  concurrency: number;
  pollIntervalMs: number;
  claim(limit: number): Promise<T[]>;
  run(item: T): Promise<void>;
  onError(err: unknown, item: T | null): void;
}

export interface Loop {
  wake(): void;
  /** Stops claiming, waits for items in flight. */
  stop(): Promise<void>;
  inFlight(): number;
}

export function workerId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function startLoop<T>(spec: LoopSpec<T>): Loop {
  const inflight = new Set<Promise<void>>();
  let running = true;
  const { sleep, wake } = createWaker();
  const backoff = claimBackoff(spec.pollIntervalMs);

  const main = (async () => {
    while (running) {
      const free = spec.concurrency - inflight.size;
      let claimed: T[] = [];
      if (free > 0) {
        try {
          claimed = await spec.claim(free);
          backoff.reset();
        } catch (err) {
          spec.onError(err, null);
          if (running) await backoff.wait();
          continue;
        }
      }
      for (const item of claimed) {
        const p: Promise<void> = spec
          .run(item)
          .catch((err) => {
            if (!(err instanceof LeaseLost)) spec.onError(err, item);
          })
          .finally(() => {
            inflight.delete(p);
            // Refill in batches: claiming one item per freed slot would run the claim query per item.
            if (running && inflight.size <= spec.concurrency / 2) wake();
          });
        inflight.add(p);
      }
      if (!running) break;
      // Full, or nothing more due: wait for a slot, a wake-up or the poll interval. A claim that
      // returned fewer items than it asked for found all that was due, so claiming again at once
      // would find nothing (a second claim statement per wake-up, per create at a low rate); work
      // that comes meanwhile wakes the loop (the waker keeps a wake-up that finds it busy).
      if (claimed.length < free || inflight.size >= spec.concurrency) await sleep(spec.pollIntervalMs);
    }
    await Promise.allSettled([...inflight]);
  })();

  return {
    wake,
    inFlight: () => inflight.size,
    async stop() {
      running = false;
      wake();
      backoff.cancel();
      await main;
    },
  };
}
