import { createHash } from 'node:crypto';
import type { Statement } from '../db/database.ts';

// Builds, once at module load, SQL expressions that produce JSON text: a document is a sequence
// of constant pieces (keys, punctuation, literal values) and column expressions, glued with one
// concat() per resource (one allocation, unlike a chain of ||). Members keep the order they are
// listed in, which is the order of the serializers and the response schemas.

type Part = { lit: string } | { sql: string };

/** A JSON value as SQL: constant pieces and expressions that yield JSON text (never SQL null). */
export type Json = Part[];

/** A JSON constant (given as JSON text). */
export const lit = (jsonText: string): Json => [{ lit: jsonText }];

/** An SQL expression that already yields JSON text, never null. */
export const raw = (sqlExpr: string): Json => [{ sql: sqlExpr }];

/** Any value PostgreSQL turns into JSON itself (text, text[], boolean); SQL null is JSON null. */
export const val = (e: string): Json => raw(`coalesce(to_json(${e})::text, 'null')`);

/** An integer or float column (float8: the shortest exact form, as JavaScript writes numbers). */
export const num = (e: string): Json => raw(`coalesce(to_json((${e})::float8)::text, 'null')`);

/**
 * A timestamp the way `iso()` writes it: UTC, milliseconds, `Z`, quotes included (to_char writes a
 * `\"` of its format as a double quote, which saves two concatenations per timestamp).
 */
export const time = (e: string): Json =>
  raw(`coalesce(to_char((${e}) at time zone 'UTC', '\\"YYYY-MM-DD"T"HH24:MI:SS.MS"Z\\"'), 'null')`);

/** The kinds of marker: what of which reference record replaces it (src/reference/markers.ts). */
export type MarkerKind =
  | 'pn' // port name (null when unknown)
  | 'pz' // port time zone
  | 'pi' // port identifier {"type":"port","id":…} (as serializers write it: resources in `included`)
  | 'pd' // port identifier {"id":…,"type":"port"} (as the response schema orders it: resources in `data`)
  | 'ls' // shipping line SCAC (the code itself when unknown)
  | 'ln' // shipping line name
  | 'lk'; // shipping line short name

/**
 * A reference value that expandMarkers fills in (null when `code` is null): the JSON string
 * `"\u0001<kind>:<code>"` (src/reference/markers.ts). One concat() call.
 */
export const marker = (kind: MarkerKind, code: string): Json =>
  raw(`case when (${code}) is null then 'null' else concat('"', chr(1), '${kind}:', ${code}, '"') end`);

/**
 * Where a resource goes decides its members' order: in `data` the response schema orders them (id,
 * type, attributes, links, relationships; identifiers id, type); in `included` (an open schema)
 * the serializer's object order stands (…, relationships, links; identifiers type, id).
 */
export type Form = 'data' | 'included';

/** A to-one relationship's data: an identifier or null. Ids are UUIDs: nothing to escape. */
export const ident = (type: string, id: string, form: Form): Json =>
  form === 'data'
    ? raw(`coalesce('{"id":"' || (${id}) || '","type":"${type}"}', 'null')`)
    : raw(`coalesce('{"type":"${type}","id":"' || (${id}) || '"}', 'null')`);

/**
 * A JSON array of identifiers of `type` whose ids `idsQuery` selects (one uuid column, ordered).
 * The ids are joined in one array_to_string: a concatenation per id cost 3x as much.
 */
export function idArray(type: string, form: Form, idsQuery: string): Json {
  const [open, close] =
    form === 'data' ? ['{"id":"', `","type":"${type}"}`] : [`{"type":"${type}","id":"`, '"}'];
  // Ids are never empty strings, so an empty join means no ids. (A subquery naming the array once
  // was inlined by the planner and ran the array's query twice.)
  return raw(`coalesce(${quote(`[${open}`)} || nullif(array_to_string(array(${idsQuery}), ${quote(`${close},${open}`)}), '')
    || ${quote(`${close}]`)}, '[]')`);
}

/**
 * An object's members. A member named SPLICE is an expression that yields members already written
 * as JSON text (`"a":1,"b":2`, never empty): a piece stored in the row (stored.ts).
 */
export type Members = Array<[string, Json]>;
export const SPLICE = '...';

/** Members without the braces: what a stored piece holds. */
export function membersOf(members: Members): Json {
  const out: Part[] = [];
  members.forEach(([key, value], i) => {
    const comma = i ? ',' : '';
    if (key === SPLICE) out.push({ lit: comma }, ...value);
    else out.push({ lit: `${comma}${JSON.stringify(key)}:` }, ...value);
  });
  return out;
}

export const obj = (members: Members): Json => [{ lit: '{' }, ...membersOf(members), { lit: '}' }];

const quoteText = (s: string) => `'${s.replaceAll("'", "''")}'`;
const quote = quoteText;

/** The SQL text expression of a JSON value. */
export function sqlOf(value: Json): string {
  const parts: string[] = [];
  let pending = '';
  for (const p of value) {
    if ('lit' in p) pending += p.lit;
    else {
      if (pending) parts.push(quote(pending));
      pending = '';
      parts.push(p.sql);
    }
  }
  if (pending) parts.push(quote(pending));
  if (parts.length === 1) return `(${parts[0]})::text`;
  return concat(parts);
}

// concat() takes at most 100 arguments.
function concat(parts: string[]): string {
  if (parts.length <= 90) return `concat(${parts.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < parts.length; i += 90) chunks.push(concat(parts.slice(i, i + 90)));
  return concat(chunks);
}

/** A statement named after its text, so a changed text is never run under an old name. */
export function statement(prefix: string, text: string): Statement {
  return { name: `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`, text };
}
