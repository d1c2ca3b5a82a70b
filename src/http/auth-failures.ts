import { createHash } from 'node:crypto';

// Failed authentications per client address (the socket's address, or what the trusted proxy
// says when TRUST_PROXY is set), in memory of this process: with N API processes an address
// gets up to N times the limit, which is still a bound, and costs no database write per failure.
//
// Over the limit, an address gets 429 without a database look-up for any key it has not used
// successfully before; keys it has (remembered by SHA-256 per address) and keys this process has
// verified recently (the key cache) keep working, so a valid client behind the same address as a
// key guesser is not locked out, and the guesser cannot use the limit to learn which keys exist.

export interface AuthFailureLimiter {
  /** Seconds until the address may try unfamiliar keys again; 0 when it is not limited. */
  blockedFor(address: string): number;
  /** Counts one failed authentication (malformed, unknown or revoked key). */
  fail(address: string): void;
  /** Remembers a key that authenticated from this address. */
  succeed(address: string, key: string): void;
  /** The key has authenticated from this address before. */
  familiar(address: string, key: string): boolean;
}

interface Entry {
  /** Failure times, oldest first, at most `limit` of them. */
  failures: number[];
  keys: Set<string>;
}

const MAX_ADDRESSES = 10_000;
const MAX_KEYS_PER_ADDRESS = 32;

export function createAuthFailureLimiter(opts: {
  limit: number;
  windowMs: number;
  now?: () => number;
}): AuthFailureLimiter {
  const now = opts.now ?? Date.now;
  const entries = new Map<string, Entry>();
  const digest = (key: string) => createHash('sha256').update(key).digest('base64');
  const entry = (address: string, create: boolean): Entry | undefined => {
    let e = entries.get(address);
    if (e) {
      // Most recently used last, so the oldest address is dropped first when the map is full.
      entries.delete(address);
      entries.set(address, e);
    } else if (create) {
      if (entries.size >= MAX_ADDRESSES) entries.delete(entries.keys().next().value!);
      e = { failures: [], keys: new Set() };
      entries.set(address, e);
    }
    return e;
  };
  const prune = (e: Entry) => {
    const cutoff = now() - opts.windowMs;
    while (e.failures.length > 0 && e.failures[0]! <= cutoff) e.failures.shift();
  };
  return {
    blockedFor(address) {
      const e = entries.get(address);
      if (!e) return 0;
      prune(e);
      if (e.failures.length < opts.limit) return 0;
      return Math.max(1, Math.ceil((e.failures[0]! + opts.windowMs - now()) / 1000));
    },
    fail(address) {
      const e = entry(address, true)!;
      prune(e);
      e.failures.push(now());
      if (e.failures.length > opts.limit) e.failures.shift();
    },
    succeed(address, key) {
      const e = entry(address, true)!;
      const d = digest(key);
      if (e.keys.has(d)) return;
      if (e.keys.size >= MAX_KEYS_PER_ADDRESS) e.keys.delete(e.keys.values().next().value!);
      e.keys.add(d);
    },
    familiar(address, key) {
      return entry(address, false)?.keys.has(digest(key)) ?? false;
    },
  };
}
