import { createHash } from 'node:crypto';

// Namespace for ids derived from shipped reference data (ports, terminals, shipping lines):
// the same locode always gets the same id, on every install, without storing the data.
const NAMESPACE = Buffer.from('6f1c2a4e9b7d4e0f8a3c5d2b1e0f9a87', 'hex');

/** RFC 4122 version-5 (name-based, SHA-1) UUID. */
export function uuidV5(name: string, namespace: Buffer = NAMESPACE): string {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6]! & 0x0f) | 0x50;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}
