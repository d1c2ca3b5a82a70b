import { hash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

// API keys this process has verified against the database, so the hot path checks a key without
// a round trip. Only verified keys are kept (by SHA-256, never the key itself); a revoked or
// deleted key reaches every process through the change feed (`tracker_keys`), which empties the
// cache; while the feed is down the cache is off and every request goes to the database. An
// entry lives a minute, so the key's last_used_at (touched on the database path) stays current.

export interface KeyCache {
  get(key: string): { accountId: string; keyId: string } | undefined;
  /** Take before the database check and pass to `set`: a revocation in between wins. */
  generation(): number;
  set(key: string, value: { accountId: string; keyId: string }, generation: number): void;
  clear(): void;
  setEnabled(enabled: boolean): void;
}

const MAX_KEYS = 10_000;
const TTL_MS = 60_000;

export function createKeyCache(now: () => number = Date.now): KeyCache {
  // Least recently used keys go first when full; expiry is checked on read (`now` is injectable).
  const keys = new LRUCache<string, { accountId: string; keyId: string; expiresAt: number }>({
    max: MAX_KEYS,
  });
  let enabled = false;
  let generation = 0;
  // One-shot hashing: no Hash object per request (this runs on every authenticated request).
  const digest = (key: string) => hash('sha256', key, 'base64');
  return {
    get(key) {
      if (!enabled) return undefined;
      const e = keys.get(digest(key));
      return e && e.expiresAt > now() ? e : undefined;
    },
    generation: () => generation,
    set(key, value, gen) {
      if (!enabled || gen !== generation) return;
      keys.set(digest(key), { ...value, expiresAt: now() + TTL_MS });
    },
    clear() {
      generation++;
      keys.clear();
    },
    setEnabled(on) {
      enabled = on;
      generation++;
      keys.clear();
    },
  };
}
