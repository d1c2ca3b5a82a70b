import { isAscii } from 'node:buffer';

// Serialised GET responses per account, bounded by bytes (least recently used out first) and by
// age. Freshness comes from the change feed (src/db/change-feed.ts). Every entry carries the tags
// it depends on (the ids of the resources its document shows, or the account's collection for a
// list, see cache-hooks.ts); a change naming a tag drops exactly the entries that carry it. A change
// that names no resources bumps the account's generation, which makes all its entries stale at
// once. A response is stored only if neither its account's generation nor any of its tags moved
// while it was being read, so a read that raced a write can never put the older data back. While
// the feed is down nothing is served or stored.

export interface CachedResponse {
  /** As sent: text, or already encoded (the large list pages, src/util/json-pieces.ts). */
  body: string | Buffer;
  contentType: string;
}

/** Taken before a read (`begin`), handed back to `set`: what the cache knew when the read began. */
export interface ReadToken {
  generation: number;
  seq: number;
}

interface Entry extends CachedResponse {
  generation: number;
  expiresAt: number;
  bytes: number;
  /** Full tags (`<account> <tag>`), for the tag index. */
  tags: string[];
}

export interface ResponseCache {
  /** The account's generation and the invalidation sequence now: take it before reading. */
  begin(account: string): ReadToken;
  get(account: string, key: string): CachedResponse | undefined;
  /**
   * Whether this answer for this key would be stored: always while there is room; when storing it
   * means evicting, only if the key has been asked for more often lately than the entry it would
   * evict (so random reads over more data than fits do not churn the cache).
   */
  admits(account: string, key: string, body: string | Buffer): boolean;
  /** Stores unless the account or one of `tags` was invalidated since `token` was taken. */
  set(
    account: string,
    key: string,
    token: ReadToken,
    response: CachedResponse,
    tags: readonly string[],
  ): void;
  /** Every entry of the account is stale ('*': of every account). */
  invalidate(account: string): void;
  /** The entries of the account that carry one of `tags` are stale. */
  invalidateTags(account: string, tags: readonly string[]): void;
  /** Feed up (serve and store) or down (drop everything, serve nothing). */
  setEnabled(enabled: boolean): void;
  stats(): { entries: number; bytes: number; hits: number; misses: number; tags: number };
}

/**
 * How many recent tag invalidations are remembered for the race check. A read that began before
 * the oldest one remembered is not stored (it cannot be told apart from a raced one); reads take
 * milliseconds, so this is only reached by a read slower than this many invalidations.
 */
const RECENT_TAGS = 20_000;

/**
 * Recent look-ups counted per key (a 32-bit hash), halved every this many look-ups so the counts
 * follow what is asked for now (the frequency sketch of TinyLFU, without its bloom filters).
 */
const FREQUENCY_WINDOW = 100_000;

/**
 * An answer that would take more than this share of the cache is not stored (128 KB at the default
 * 16 MB, counted as textBytes does: ~128,000 ASCII characters, ~120 transport events). A page of
 * 30 shipments with their containers (~440 KB) would push out about sixty shipment documents; under
 * 50 clients reading random pages such pages were hit 2-5 % of the time and kept the process above
 * 300 MB RSS.
 */
const LARGEST_SHARE = 128;

/**
 * The memory an answer's text takes as the string it is kept as (cache-hooks.ts keeps a Buffer
 * answer as text). V8 keeps a string of ASCII characters at one byte a character (the answers of
 * the JSON:API reads almost always are: ids, codes, dates, numbers) and any other string at two.
 * Counted at two bytes a character for all, the default 16 MB held about half the 1,000 shipment
 * documents of the mixed benchmark while taking ~8 MB (docs/benchmarks.md, throughput).
 */
function textBytes(body: string | Buffer): number {
  if (Buffer.isBuffer(body)) return isAscii(body) ? body.length : body.length * 2;
  return Buffer.byteLength(body) === body.length ? body.length : body.length * 2;
}

/** FNV-1a: a key's hash for the look-up counts (a collision only blurs a count). */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function createResponseCache(opts: {
  maxBytes: number;
  ttlMs: number;
  now?: () => number;
}): ResponseCache {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>(); // insertion order = recency order
  const byTag = new Map<string, Set<string>>(); // full tag -> full keys
  const generations = new Map<string, number>();
  const recent = new Map<string, number>(); // full tag -> seq of its last invalidation, oldest first
  let seq = 0;
  let floor = 0; // seq of the newest invalidation forgotten from `recent`
  let epoch = 0; // added to every generation: bumped by '*' and by feed outages
  let enabled = false;
  let bytes = 0;
  let hits = 0;
  let misses = 0;

  const drop = (key: string, e: Entry) => {
    entries.delete(key);
    bytes -= e.bytes;
    for (const t of e.tags) {
      const keys = byTag.get(t);
      keys?.delete(key);
      if (keys?.size === 0) byTag.delete(t);
    }
  };
  const clear = () => {
    epoch++;
    entries.clear();
    byTag.clear();
    recent.clear();
    floor = seq;
    bytes = 0;
  };
  const generation = (account: string) => epoch + (generations.get(account) ?? 0);
  const frequency = new Map<number, number>();
  let lookups = 0;
  const counted = (full: string) => frequency.get(hash32(full)) ?? 0;
  const count = (full: string) => {
    const h = hash32(full);
    frequency.set(h, (frequency.get(h) ?? 0) + 1);
    if (++lookups < FREQUENCY_WINDOW) return;
    lookups = 0;
    for (const [k, n] of frequency) {
      if (n > 1) frequency.set(k, n >> 1);
      else frequency.delete(k);
    }
  };
  const sizeOf = (body: string | Buffer, key: string, tagCount: number) =>
    textBytes(body) + key.length * 2 + 200 + tagCount * 120;

  return {
    begin: (account) => ({ generation: generation(account), seq }),
    get(account, key) {
      const full = `${account} ${key}`;
      count(full);
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
    admits(account, key, body) {
      if (!enabled) return false;
      const full = `${account} ${key}`;
      const size = sizeOf(body, full, 0);
      if (size > opts.maxBytes / LARGEST_SHARE) return false;
      if (bytes + size <= opts.maxBytes || entries.has(full)) return true;
      const victim = entries.keys().next().value;
      return victim === undefined || counted(full) > counted(victim);
    },
    set(account, key, token, response, tags) {
      if (!enabled || token.generation !== generation(account) || token.seq < floor) return;
      const fullTags = tags.map((t) => `${account} ${t}`);
      for (const t of fullTags) if ((recent.get(t) ?? 0) > token.seq) return;
      const size = sizeOf(response.body, key, fullTags.length);
      if (size > opts.maxBytes / LARGEST_SHARE) return;
      const full = `${account} ${key}`;
      const old = entries.get(full);
      if (old) drop(full, old);
      entries.set(full, {
        ...response,
        generation: token.generation,
        expiresAt: now() + opts.ttlMs,
        bytes: size,
        tags: fullTags,
      });
      for (const t of fullTags) {
        const keys = byTag.get(t);
        if (keys) keys.add(full);
        else byTag.set(t, new Set([full]));
      }
      bytes += size;
      for (const [k, e] of entries) {
        if (bytes <= opts.maxBytes) break;
        drop(k, e);
      }
    },
    invalidate(account) {
      if (account === '*') {
        clear();
        return;
      }
      generations.set(account, (generations.get(account) ?? 0) + 1);
    },
    invalidateTags(account, tags) {
      seq++;
      for (const tag of tags) {
        const t = `${account} ${tag}`;
        recent.delete(t);
        recent.set(t, seq);
        const keys = byTag.get(t);
        if (keys) for (const k of [...keys]) drop(k, entries.get(k)!);
      }
      for (const [t, s] of recent) {
        if (recent.size <= RECENT_TAGS) break;
        recent.delete(t);
        floor = s;
      }
    },
    setEnabled(on) {
      enabled = on;
      clear();
    },
    stats: () => ({ entries: entries.size, bytes, hits, misses, tags: byTag.size }),
  };
}
