import { LRUCache } from 'lru-cache';
import type { MarkerKind } from '../members/json-text.ts';
import { portByLocode, shippingLineByScac } from './data.ts';

export type { MarkerKind };

// Reference data (ports, shipping lines) lives in this process, not in the database: ~30k ports
// would be a table to load into every database. Documents assembled in SQL
// (src/shipments/sql-bodies/) therefore carry a marker where a port's or line's value goes, a
// JSON string `"\u0001<kind>:<code>"` whose first character is a raw U+0001, and `expandMarkers`
// swaps each for the value the JavaScript serializers would write. JSON text never holds a raw
// control character (PostgreSQL's to_json and jsonb output escape them all, as JSON requires), so
// stored text (a ref number, a carrier's payload) can never pose as a marker; and, unlike a
// per-process nonce, the marker is the same in every process, so documents stored in the database
// (migrations/0043) can carry it.

/** The character that opens a marker (SQL: chr(1)). */
export const MARKER_START = '\u0001';

const KINDS = new Set(['pn', 'pz', 'pi', 'pd', 'ls', 'ln', 'lk']);
const CODE = /^[A-Za-z0-9]*$/;

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
// Keyed by the marker's own text (`kind:code`), so a marker seen before costs one slice and one
// look-up; only a marker not seen yet is checked (a known kind, a code of letters and digits).
const memo = new LRUCache<string, string>({ max: 20_000 });

/** The value of the marker `kind:code`, or undefined when it is not one. */
function markerValue(key: string): string | undefined {
  const known = memo.get(key);
  if (known !== undefined) return known;
  const kind = key.slice(0, 2);
  const code = key.slice(3);
  if (!KINDS.has(kind) || !CODE.test(code)) return undefined;
  const v = referenceValue(kind, code);
  memo.set(key, v);
  return v;
}

/**
 * What a marker of `kind` for `code` stands for, as a value: the JavaScript path's side of a member
 * the SQL path writes as a marker (src/members/kit.ts), from the same look-up.
 */
export function referenceOf(kind: MarkerKind, code: string | null): unknown {
  if (code === null) return null;
  return JSON.parse(markerValue(`${kind}:${code}`) ?? referenceValue(kind, code));
}

/**
 * `text` with every marker replaced by its reference value, as pieces in order: slices of `text`
 * and reference values, appended to `out`. Encoding the pieces straight into a Buffer
 * (src/util/json-pieces.ts) copies the text once, where joining them first copies it twice more
 * (the join, then the flattening of the answer on its way out).
 *
 * Markers are found with indexOf on the marker character, which only markers hold: a regular
 * expression had to stop at every `"` of the document (a tenth of its characters), and was ~3 % of
 * the process's CPU on a page of events.
 */
export function markerPieces(text: string, out: string[] = []): string[] {
  let at = text.indexOf(MARKER_START);
  let copied = 0;
  while (at >= 0) {
    // `"\u0001kk:CODE"`: the quote before the marker character, kind, colon, code, quote.
    const end = text.indexOf('"', at + 4);
    const value =
      text.charCodeAt(at - 1) === 34 && text.charCodeAt(at + 3) === 58 && end > 0
        ? markerValue(text.slice(at + 1, end))
        : undefined;
    if (value !== undefined) {
      out.push(text.slice(copied, at - 1), value);
      copied = end + 1;
    }
    at = text.indexOf(MARKER_START, at + 1);
  }
  out.push(copied ? text.slice(copied) : text);
  return out;
}

/** The document text with every marker replaced by its reference value (see markerPieces). */
export function expandMarkers(text: string): string {
  const pieces = markerPieces(text);
  return pieces.length === 1 ? text : pieces.join('');
}
