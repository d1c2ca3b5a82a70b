import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

// API keys look like `trk_3f9a1c0b7e2d_<43 chars of base64url>`: a recognisable product prefix,
// a public 12-hex look-up id, and 32 random bytes. Only the SHA-256 of the whole key is stored:
// a fast hash is right here because the key carries 256 bits of entropy (no guessing to slow).

const KEY_RE = /^(trk_[0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface NewKey {
  id: string;
  prefix: string;
  key: string;
  hash: Buffer;
}

export function generateKey(): NewKey {
  const prefix = `trk_${randomBytes(6).toString('hex')}`;
  const key = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { id: randomUUID(), prefix, key, hash: hashKey(key) };
}

export function hashKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** The look-up prefix of a well-formed key, or null. */
export function keyPrefix(key: string): string | null {
  return KEY_RE.exec(key)?.[1] ?? null;
}

export function keyMatches(key: string, storedHash: Buffer): boolean {
  const h = hashKey(key);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}
