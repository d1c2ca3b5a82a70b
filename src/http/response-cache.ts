// Serialised GET responses per account, bounded by bytes (least recently used out first) and by
// age. Freshness comes from the change feed (src/db/change-feed.ts): every committed write to an
// account's tracking data bumps the account's generation, which makes all its entries stale at
// once. A response is stored only if the generation did not move while it was being read, so a
// read that raced a write can never put the older data back. While the feed is down nothing is
// served or stored.

export interface CachedResponse {
  body: string;
  contentType: string;
}

interface Entry extends CachedResponse {
  account: string;
  generation: number;
  expiresAt: number;
  bytes: number;
}

export interface ResponseCache {
  /** The account's generation now: take it before reading, pass it to `set`. */
  generation(account: string): number;
  get(account: string, key: string): CachedResponse | undefined;
  set(account: string, key: string, generation: number, response: CachedResponse): void;
  /** Every entry of the account is stale ('*': of every account). */
  invalidate(account: string): void;
  /** Feed up (serve and store) or down (drop everything, serve nothing). */
  setEnabled(enabled: boolean): void;
  stats(): { entries: number; bytes: number; hits: number; misses: number };
}

export function createResponseCache(opts: {
  maxBytes: number;
  ttlMs: number;
  now?: () => number;
}): ResponseCache {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>(); // insertion order = recency order
  const generations = new Map<string, number>();
  let epoch = 0; // added to every generation: bumped by '*' and by feed outages
  let enabled = false;
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const drop = (key: string, e: Entry) => {
    entries.delete(key);
    bytes -= e.bytes;
  };
  const generation = (account: string) => epoch + (generations.get(account) ?? 0);

  return {
    generation,
    get(account, key) {
      const full = `${account} ${key}`;
      const e = entries.get(full);
      if (!enabled || !e) {
        misses++;
        return undefined;
      }
      if (e.generation !== generation(account) || e.expiresAt <= now()) {
        drop(full, e);
        misses++;
        return undefined;
      }
      entries.delete(full);
      entries.set(full, e);
      hits++;
      return e;
    },
    set(account, key, gen, response) {
      if (!enabled || gen !== generation(account)) return;
      // Strings are UTF-16 in memory; two bytes a character is the honest bound.
      const size = response.body.length * 2 + key.length * 2 + 200;
      if (size > opts.maxBytes / 8) return; // one huge page must not flush the whole cache
      const full = `${account} ${key}`;
      const old = entries.get(full);
      if (old) drop(full, old);
      entries.set(full, {
        ...response,
        account,
        generation: gen,
        expiresAt: now() + opts.ttlMs,
        bytes: size,
      });
      bytes += size;
      for (const [k, e] of entries) {
        if (bytes <= opts.maxBytes) break;
        drop(k, e);
      }
    },
    invalidate(account) {
      if (account === '*') {
        epoch++;
        entries.clear();
        bytes = 0;
        return;
      }
      generations.set(account, (generations.get(account) ?? 0) + 1);
    },
    setEnabled(on) {
      enabled = on;
      epoch++;
      entries.clear();
      bytes = 0;
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses }),
  };
}
