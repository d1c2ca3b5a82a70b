// Webhook signatures. Two schemes are sent side by side:
// - legacy: `X-SERVICE-Webhook-Signature: <hex HMAC-SHA256(secret, body)>` (the header the spec promises);
// - Standard Webhooks (standardwebhooks.com): `webhook-id`, `webhook-timestamp`, `webhook-signature`,
//   so receivers can use any off-the-shelf verifier and get replay protection from the signed timestamp.
// Pure functions only: no I/O, no clock unless the caller passes none.
import { createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export const SECRET_PREFIX = 'whsec_';
export const DEFAULT_TOLERANCE_SECONDS = 300;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

type Body = string | Buffer;

/** `whsec_` + base64 of 32 random bytes (the spec allows 24 to 64). */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** True for a `whsec_` secret whose key is valid base64 of 24 to 64 bytes: what webhook creation accepts. */
export function isValidSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return false;
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(b64)) return false;
  const n = Buffer.from(b64, 'base64').length;
  return n >= 24 && n <= 64;
}

/**
 * HMAC key of the Standard Webhooks scheme. `whsec_` secrets are base64-decoded (strictly: Node's decoder
 * silently skips garbage, which would sign with a key the receiver's library never derives). Secrets without
 * the prefix (a free-text `secret` given to the test trigger) are used as their UTF-8 bytes, the "raw" key
 * format of the reference libraries.
 */
export function standardKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) return Buffer.from(secret, 'utf8');
  const b64 = secret.slice(SECRET_PREFIX.length);
  if (b64.length === 0 || !BASE64.test(b64)) throw new Error('webhook secret: invalid base64 after whsec_');
  return Buffer.from(b64, 'base64');
}

// HMAC keys as KeyObjects, made once per secret: a raw Buffer key is converted on every
// createHmac, which costs more than hashing a typical body.
const keyCache = new LRUCache<string, KeyObject>({ max: 10_000 });
function cachedKey(cacheKey: string, make: () => Buffer): KeyObject {
  let k = keyCache.get(cacheKey);
  if (!k) {
    k = createSecretKey(make());
    keyCache.set(cacheKey, k);
  }
  return k;
}

/** Lowercase hex HMAC-SHA256 of the raw body, keyed with the whole secret string as UTF-8. */
export function legacySignature(secret: string, rawBody: Body): string {
  const key = cachedKey(`l:${secret}`, () => Buffer.from(secret, 'utf8'));
  return createHmac('sha256', key).update(rawBody).digest('hex');
}

/** `v1,<base64 HMAC-SHA256 over "<msgId>.<timestamp>.<body>">`. */
export function standardSignature(
  secret: string,
  msgId: string,
  timestampSeconds: number,
  rawBody: Body,
): string {
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('timestamp must be integer seconds');
  const mac = createHmac(
    'sha256',
    cachedKey(`s:${secret}`, () => standardKey(secret)),
  ).update(`${msgId}.${timestampSeconds}.`);
  return 'v1,' + mac.update(rawBody).digest('base64');
}

export interface SignatureInput {
  /** Current secret first, then previous secrets still inside their rotation grace period. */
  secrets: string[];
  /** e.g. `X-SERVICE-Webhook-Signature`. */
  legacyHeaderName: string;
  /** The notification id: stays the same across retries so receivers can deduplicate. */
  msgId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: Body;
}

/**
 * Headers of one delivery attempt. The legacy header holds only the CURRENT secret's signature (its format
 * is a single hex value, and existing receivers compare it whole); during a rotation
 * `<legacyHeaderName>-Previous` carries the previous secrets' signatures, comma-separated. `webhook-signature`
 * holds one space-separated `v1,` entry per secret, as the Standard Webhooks spec defines.
 * With no secret, only `webhook-id` and `webhook-timestamp` are returned (unsigned test deliveries).
 */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  const { secrets, legacyHeaderName, msgId, timestamp, body } = input;
  const headers: Record<string, string> = { 'webhook-id': msgId, 'webhook-timestamp': String(timestamp) };
  const [current, ...previous] = secrets;
  if (current === undefined) return headers;
  headers[legacyHeaderName] = legacySignature(current, body);
  if (previous.length > 0) {
    headers[`${legacyHeaderName}-Previous`] = previous.map((s) => legacySignature(s, body)).join(',');
  }
  headers['webhook-signature'] = secrets.map((s) => standardSignature(s, msgId, timestamp, body)).join(' ');
  return headers;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Receiver-side check of the legacy header (also accepts a comma list, as in the `-Previous` header). */
export function verifyLegacy(secret: string, rawBody: Body, headerValue: string | null | undefined): boolean {
  if (!headerValue) return false;
  const expected = legacySignature(secret, rawBody);
  // Compare every entry (no early exit) so timing does not reveal which one matched.
  return headerValue.split(',').reduce((ok, v) => safeEqual(expected, v.trim().toLowerCase()) || ok, false);
}

export type VerifyResult =
  | { ok: true }
  | {
      ok: false;
      reason: 'missing_headers' | 'bad_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'no_match';
    };

/** Receiver-side check of the Standard Webhooks headers, with a replay window of `toleranceSeconds`. */
export function verifyStandard(opts: {
  secret: string;
  headers: { 'webhook-id'?: string; 'webhook-timestamp'?: string; 'webhook-signature'?: string };
  body: Body;
  nowSeconds?: number;
  toleranceSeconds?: number;
}): VerifyResult {
  const id = opts.headers['webhook-id'];
  const ts = opts.headers['webhook-timestamp'];
  const sig = opts.headers['webhook-signature'];
  if (!id || !ts || !sig) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,15}$/.test(ts)) return { ok: false, reason: 'bad_timestamp' };
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const timestamp = Number(ts);
  if (timestamp < now - tolerance) return { ok: false, reason: 'timestamp_too_old' };
  if (timestamp > now + tolerance) return { ok: false, reason: 'timestamp_too_new' };
  const expected = standardSignature(opts.secret, id, timestamp, opts.body);
  let ok = false;
  for (const entry of sig.split(' ')) if (safeEqual(expected, entry)) ok = true;
  return ok ? { ok: true } : { ok: false, reason: 'no_match' };
}
