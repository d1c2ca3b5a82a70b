import { LRUCache } from 'lru-cache';
import type { Bucket } from './rate-limit.ts';

// Rate limits without a database write per request. The counters stay in the database (one
// rolling 60 s window per account and bucket, shared by every process), but a request that goes
// to the database reserves a small batch there (rate_limit_reserve: at most RATE_LIMIT_BATCH_MAX
// and never more than a tenth of what the window has left), and the process admits the next
// requests of that account from its batch without a round trip. A reservation is counted in the
// database when it is made, so processes together never admit more than the limit; near the
// limit the batches shrink to one request and every request is counted there. A batch is used
// within the window it was reserved in, or dropped.

export interface RateLimiter {
  /** Admits one request from this process's reserved batch: the requests left, or null (none). */
  takeLocal(account: string, bucket: Bucket): number | null;
  /** Keeps what the database granted beyond the request that asked (`left`: window's remainder). */
  addGrant(account: string, bucket: Bucket, granted: number, left: number): void;
}

interface Batch {
  tokens: number;
  /** The window's remainder in the database after the last grant. */
  left: number;
  expiresAt: number;
}

const MAX_BATCHES = 10_000;

export function createRateLimiter(opts: { windowSeconds: number; now?: () => number }): RateLimiter {
  const now = opts.now ?? Date.now;
  const batches = new LRUCache<string, Batch>({ max: MAX_BATCHES });
  return {
    takeLocal(account, bucket) {
      const k = `${account}:${bucket}`;
      const b = batches.get(k);
      if (!b) return null;
      if (b.tokens <= 0 || b.expiresAt <= now()) {
        batches.delete(k);
        return null;
      }
      b.tokens--;
      return b.left + b.tokens;
    },
    addGrant(account, bucket, granted, left) {
      if (granted <= 1) return;
      const k = `${account}:${bucket}`;
      const b = batches.get(k);
      // Slots older than the window stop counting in the database: so must the tokens they hold.
      const expiresAt = now() + (opts.windowSeconds - 1) * 1000;
      if (b && b.expiresAt > now()) {
        b.tokens += granted - 1;
        b.left = left;
        b.expiresAt = Math.min(b.expiresAt, expiresAt);
      } else {
        batches.set(k, { tokens: granted - 1, left, expiresAt });
      }
    },
  };
}
