// Compares a resource of the live reference service (its recorded answers) with ours of the same
// type: every attribute and relationship the live one has must be in ours, with a compatible JSON
// type (null on either side matches anything; objects are compared member by member, arrays by
// their first elements). What we add beyond the live answer is not a difference.

type Json = unknown;
type Obj = Record<string, Json>;

const kind = (v: Json) =>
  v === null || v === undefined
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'object'
        ? 'object'
        : typeof v;

/** Where our JSON type knowingly differs from the live answer's: path -> why (docs/api-notes.md). */
export const TYPE_DIFFERENCES: Record<string, string> = {
  'port.attributes.latitude':
    'the live service sends coordinates as decimal strings; the document and our clients (console, MCP) read numbers',
  'port.attributes.longitude': 'as latitude',
};

function compareValue(live: Json, ours: Json, path: string, out: string[]) {
  const [l, o] = [kind(live), kind(ours)];
  if (l === 'null' || o === 'null') return;
  if (l !== o) {
    if (!TYPE_DIFFERENCES[path]) out.push(`${path}: live ${l}, ours ${o}`);
    return;
  }
  if (l === 'object') compareMembers(live as Obj, ours as Obj, path, out);
  if (l === 'array' && (live as Json[]).length > 0 && (ours as Json[]).length > 0) {
    compareValue((live as Json[])[0], (ours as Json[])[0], `${path}[]`, out);
  }
}

function compareMembers(live: Obj, ours: Obj, path: string, out: string[]) {
  for (const [k, v] of Object.entries(live)) {
    if (!(k in ours)) out.push(`${path}.${k}: missing`);
    else compareValue(v, ours[k], `${path}.${k}`, out);
  }
}

/** The differences of our resource from the live one (empty: ours carries all it carries). */
export function compareResource(live: Obj, ours: Obj): string[] {
  const out: string[] = [];
  const type = String(live.type);
  if (ours.type !== live.type) out.push(`${type}: ours is a ${String(ours.type)}`);
  compareMembers((live.attributes ?? {}) as Obj, (ours.attributes ?? {}) as Obj, `${type}.attributes`, out);
  const liveRels = (live.relationships ?? {}) as Record<string, Obj>;
  const ourRels = (ours.relationships ?? {}) as Record<string, Obj>;
  for (const [k, rel] of Object.entries(liveRels)) {
    const mine = ourRels[k];
    if (!mine) {
      out.push(`${type}.relationships.${k}: missing`);
      continue;
    }
    // A to-one is an object (or null), a to-many an array; ours may link the list instead of listing it.
    if ('data' in mine && rel.data !== null && mine.data !== null) {
      if (Array.isArray(rel.data) !== Array.isArray(mine.data)) {
        out.push(`${type}.relationships.${k}.data: live ${kind(rel.data)}, ours ${kind(mine.data)}`);
      }
    } else if (!('data' in mine) && !(mine.links as Obj | undefined)?.related) {
      out.push(`${type}.relationships.${k}: neither data nor a related link`);
    }
  }
  return out;
}

/** The JSON:API resources of a recorded answer's body (data and included), or none. */
export function resourcesOf(body: Json): Obj[] {
  if (!body || typeof body !== 'object' || !('data' in (body as Obj))) return [];
  const { data, included } = body as { data: Json; included?: Json[] };
  const all = [...(Array.isArray(data) ? data : [data]), ...(included ?? [])];
  return all.filter((r): r is Obj => kind(r) === 'object' && typeof (r as Obj).type === 'string');
}

// The reference CLI prints some answers flattened (test/fixtures/live-responses/*: shipments,
// containers, container events, tracking requests, shipping lines): one camelCase record per
// resource, attributes at the top, related resources as nested objects or ids, and a few members
// the CLI composes itself. These read such a record back into the resource it was printed from.

export interface FlatShape {
  /** The JSON:API type the record was printed from. */
  type: string;
  /** Record member -> the relationship it prints (to-one: an object or null, to-many: an array). */
  relationships: Record<string, string[]>;
  /** Members the CLI computes or regroups itself, not a member of the API's resource: name -> why. */
  cliOnly: Record<string, string>;
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The JSON:API resource (type, attributes, relationships) a flattened CLI record was printed from. */
export function resourceOfFlat(shape: FlatShape, record: Obj): Obj {
  const attributes: Obj = {};
  const relationships: Record<string, Obj> = {};
  for (const [k, v] of Object.entries(record)) {
    if (k === 'id' || k in shape.cliOnly) continue;
    const rels = shape.relationships[k];
    // Only the shape of the linkage is known from a printed relation: to-many, to-one, or null.
    if (rels)
      for (const r of rels) relationships[r] = { data: Array.isArray(v) ? [] : v === null ? null : {} };
    else attributes[snake(k)] = v;
  }
  return { type: shape.type, attributes, relationships };
}

/** The differences of our plain (non-JSON:API) body from the live one, member by member. */
export function compareBody(live: Obj, ours: Obj, path: string): string[] {
  const out: string[] = [];
  compareMembers(live, ours, path, out);
  return out;
}
