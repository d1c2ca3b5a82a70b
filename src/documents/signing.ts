import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

// Signed ids and links: direct-upload blob ids and download links carry an HMAC, so they work
// without an API key and cannot be forged or altered. The key is DOCUMENT_URL_SECRET or, unset, a
// random key made once and kept in the database, so every API process signs alike.

const cache = new WeakMap<object, Promise<string>>();

export function signingKey(db: Kysely<DB>, configured: string | null): Promise<string> {
  if (configured) return Promise.resolve(configured);
  let p = cache.get(db);
  if (!p) {
    p = (async () => {
      await sql`insert into document_secrets (id, secret) values (1, ${randomBytes(32).toString('hex')})
                on conflict (id) do nothing`.execute(db);
      const r = await sql<{ secret: string }>`select secret from document_secrets where id = 1`.execute(db);
      return r.rows[0]!.secret;
    })();
    p.catch(() => cache.delete(db));
    cache.set(db, p);
  }
  return p;
}

export function mac(key: string, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}

export function macMatches(key: string, data: string, given: string): boolean {
  const want = Buffer.from(mac(key, data));
  const got = Buffer.from(given);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** `<blob id>--<mac>`: what POST /v2/direct_uploads answers and POST /v2/documents accepts. */
export function signBlobId(key: string, blobId: string): string {
  return `${blobId}--${mac(key, `blob:${blobId}`)}`;
}

/** The blob id inside a signed id, or null when the signature does not match. */
export function verifyBlobId(key: string, signedId: string): string | null {
  const m = /^([0-9a-f-]{36})--([\w-]{43})$/.exec(signedId);
  if (!m) return null;
  return macMatches(key, `blob:${m[1]}`, m[2]!) ? m[1]! : null;
}

/** Query of a download link: valid until `expires` (ms since epoch) for this file of this document. */
export function downloadQuery(key: string, documentId: string, storageKey: string, expires: number): string {
  return `expires=${expires}&signature=${mac(key, `file:${documentId}:${storageKey}:${expires}`)}`;
}

export function downloadSignatureValid(
  key: string,
  documentId: string,
  storageKey: string,
  expires: number,
  signature: string,
): boolean {
  return macMatches(key, `file:${documentId}:${storageKey}:${expires}`, signature);
}
