import { randomBytes } from 'node:crypto';
import { portByLocode, shippingLineByScac } from './data.ts';

// Reference data (ports, shipping lines) lives in this process, not in the database: ~30k ports
// would be a table to load into every database. Documents assembled in SQL
// (src/shipments/sql-documents/) therefore carry a marker where a port's or line's value goes, a
// JSON string `"<nonce>:<kind>:<code>"`, and `expandMarkers` swaps each for the value the
// JavaScript serializers would write. The nonce is random per process and passed to the statement
// as a parameter, so stored text (a ref number, a carrier's payload) can never pose as a marker.

export const MARKER_NONCE = randomBytes(12).toString('base64url');

const MARKER = new RegExp(`"${MARKER_NONCE}:(pn|pz|pi|pd|ls|ln|lk):([A-Za-z0-9]*)"`, 'g');

/** The kinds of marker: what of which reference record replaces it. */
export type MarkerKind =
  | 'pn' // port name (null when unknown)
  | 'pz' // port time zone
  | 'pi' // port identifier {"type":"port","id":…} (as serializers write it: resources in `included`)
  | 'pd' // port identifier {"id":…,"type":"port"} (as the response schema orders it: resources in `data`)
  | 'ls' // shipping line SCAC (the code itself when unknown)
  | 'ln' // shipping line name
  | 'lk'; // shipping line short name

const json = (v: string | null | undefined): string => (v == null ? 'null' : JSON.stringify(v));

function referenceValue(kind: string, code: string): string {
  if (kind[0] === 'p') {
    const port = code ? portByLocode(code) : undefined;
    if (kind === 'pn') return json(port?.name);
    if (kind === 'pz') return json(port?.time_zone);
    if (!port) return 'null';
    return kind === 'pi' ? `{"type":"port","id":"${port.id}"}` : `{"id":"${port.id}","type":"port"}`;
  }
  const line = shippingLineByScac(code);
  if (kind === 'ls') return json(line?.scac ?? code);
  if (kind === 'ln') return json(line?.name ?? code);
  return json(line?.short_name ?? code);
}

// Few distinct codes appear in practice (the ports and lines a deployment tracks); bounded anyway.
const memo = new Map<string, string>();

function cached(kind: string, code: string): string {
  const key = `${kind}:${code}`;
  let v = memo.get(key);
  if (v === undefined) {
    v = referenceValue(kind, code);
    if (memo.size < 20_000) memo.set(key, v);
  }
  return v;
}

/** The document text with every marker replaced by its reference value. */
export function expandMarkers(text: string): string {
  if (!text.includes(MARKER_NONCE)) return text;
  return text.replace(MARKER, (_m, kind: string, code: string) => cached(kind, code));
}
