import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { mac, macMatches, signingKey } from '../documents/signing.ts';
import { isUuid } from '../util/uuid.ts';

// Unsubscribe links: `<rule id>.<address, base64url>.<HMAC>`, signed with the key that signs the
// product's other links (DOCUMENT_URL_SECRET or the one kept in the database), so following one
// needs no API key and no one can make a link for an address they were not sent.

const data = (ruleId: string, address: string) => `unsubscribe:${ruleId}:${address}`;

export function unsubscribeToken(key: string, ruleId: string, address: string): string {
  return `${ruleId}.${Buffer.from(address).toString('base64url')}.${mac(key, data(ruleId, address))}`;
}

/** The rule and address a token names, or null when it is malformed or its signature does not match. */
export function readUnsubscribeToken(key: string, token: string): { ruleId: string; address: string } | null {
  const m = /^([0-9a-f-]{36})\.([\w-]{1,400})\.([\w-]{43})$/.exec(token);
  if (!m || !isUuid(m[1]!)) return null;
  const address = Buffer.from(m[2]!, 'base64url').toString('utf8');
  return macMatches(key, data(m[1]!, address), m[3]!) ? { ruleId: m[1]!, address } : null;
}

export const linkKey = (db: Kysely<DB>, configured: string | null) => signingKey(db, configured);
