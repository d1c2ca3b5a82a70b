import { type TSchema, Type } from 'typebox';
import { one, type Resource, selfLink } from '../jsonapi/resource.ts';
import { DateTime, Nullable, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import { iso } from '../util/iso.ts';
import {
  type Form,
  ident,
  type Json,
  lit,
  type MarkerKind,
  type Members,
  marker,
  num,
  obj,
  raw,
  SPLICE,
  time,
  val,
} from './json-text.ts';

// A resource's members, declared once. Each member says what it is called, its published schema,
// how the JavaScript path computes it from a row, the SQL expression that writes it as JSON text,
// and whether it is rendered into its row by the table's trigger (`stored`) or at each read. From
// a declaration come the response schema (so the OpenAPI document), the JavaScript serializer,
// the SQL text of the document (`resourceJson` below) and the stored pieces with their trigger
// functions (./stored.ts). Adding an attribute is one entry here, a column (migration) and, for
// a stored member, a migration made by `npm run migration:stored-json`.

export interface Member<R, C, K extends string = string> {
  readonly name: string;
  readonly schema: TSchema;
  /** The value the JavaScript path serves, from the row and the resource's context. */
  readonly js: (row: R, ctx: C) => unknown;
  /** Its JSON text as SQL: `t` the resource's row alias, `form` where the resource goes. */
  readonly sql: (t: string, form: Form) => Json;
  /** Rendered into the row by its trigger (it reads nothing but its own row), not at each read. */
  readonly stored: boolean;
  /** The row fields the JavaScript path reads: the select list is made of them. */
  readonly reads: readonly K[];
}

export interface Declaration<R, C, K extends string = string> {
  readonly type: string;
  /** The schema's description (none: the published schema has none). */
  readonly description?: string;
  /** The table whose rows the resources are; links.self is `/v2/<collection>/<id>`. */
  readonly table: string;
  /** Null: the resources have no address of their own, so no links.self (a change). */
  readonly collection: string | null;
  readonly attributes: readonly Member<R, C, K>[];
  /** Null: the resource has no relationships member (a vessel). */
  readonly relationships: readonly Member<R, C, K>[] | null;
  /**
   * What its table's trigger renders into the row (./stored.ts): `runs`, the runs of stored
   * attributes; `whole`, the whole resource (its `data` form) in resource_json; absent, nothing.
   */
  readonly stored?: 'runs' | 'whole';
}

/** The row fields a declaration's members read (for a select list typed from it). */
// biome-ignore lint/suspicious/noExplicitAny: any row and context; only the reads are asked for.
export type ReadsOf<D> = D extends Declaration<any, any, infer K> ? K : never;

export function declare<R, C, const K extends string>(d: Declaration<R, C, K>): Declaration<R, C, K> {
  const names = new Set<string>();
  for (const m of [...d.attributes, ...(d.relationships ?? [])]) {
    if (names.has(m.name)) throw new Error(`${d.type}: member ${m.name} declared twice`);
    names.add(m.name);
  }
  return d;
}

/** The row fields to select for the JavaScript path: id and every field a member reads. */
export function readsOf(d: Declaration<never, never, string>): string[] {
  const out = new Set<string>(['id']);
  for (const m of [...d.attributes, ...(d.relationships ?? [])]) for (const r of m.reads) out.add(r);
  return [...out];
}

// ---- members of columns ----------------------------------------------------------------------

interface Options {
  /** The member's name when it is not the column's. */
  name?: string;
  /** Required in the schema: the column is never null. */
  notNull?: boolean;
  /** Schema options (enum, description, …) of the value. */
  schema?: Record<string, unknown>;
  /** The value's schema, instead of the one the helper makes (a union of literals, say). */
  as?: TSchema;
  /** False: written at each read although it reads only its row (engine bookkeeping, constants). */
  stored?: boolean;
}

// Column names that are SQL key words are written quoted.
const quoted = (col: string) => (col === 'timestamp' ? `"${col}"` : col);

/** A JSON number from a numeric column (PostgreSQL answers numeric as a string, PGlite may not). */
export function toNumber(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/** Member helpers for the columns of rows of type R (resources with context C). */
export function columns<R, C = unknown>() {
  const member =
    (
      schema: (o: Record<string, unknown> | undefined) => TSchema,
      js: (v: never) => unknown,
      sql: (e: string) => Json,
    ) =>
    <K extends keyof R & string>(col: K, o: Options = {}): Member<R, C, K> => {
      const s = o.as ?? schema(o.schema);
      return {
        name: o.name ?? col,
        schema: o.notNull ? s : Nullable(s),
        js: (r) => (js as (v: unknown) => unknown)(r[col]),
        sql: (t) => sql(`${t}.${quoted(col)}`),
        stored: o.stored ?? true,
        reads: [col],
      };
    };
  const same = (v: unknown) => v;
  return {
    text: member((o) => Type.String(o), same, val),
    texts: member((o) => Type.Array(Type.String(), o), same, val),
    bool: member((o) => Type.Boolean(o), same, val),
    integer: member((o) => Type.Integer(o), toNumber, num),
    number: member((o) => Type.Number(o), toNumber, num),
    time: member((o) => (o ? Type.String({ ...o, format: 'date-time' }) : DateTime), iso, time),
    /** A to-one relationship to a `type` resource whose id is the column. */
    toOne: <K extends keyof R & string>(name: string, type: string, col: K): Member<R, C, K> => ({
      name,
      schema: RelOne,
      js: (r) => one(type, r[col] as string | null),
      sql: (t, form) => obj([['data', ident(type, `${t}.${col}`, form)]]),
      stored: false,
      reads: [col],
    }),
  };
}

/** A member whose every side is written out: a computed value, a join's field, a constant. */
export const computed = <R, C, const K extends string = never>(m: {
  name: string;
  schema: TSchema;
  js: (row: R, ctx: C) => unknown;
  sql: (t: string, form: Form) => Json;
  stored?: boolean;
  reads?: readonly K[];
}): Member<R, C, K> => ({ ...m, stored: m.stored ?? false, reads: m.reads ?? [] });

/** Always null: what the reference serves and this product does not know. */
export const alwaysNull = <R, C>(name: string, schema: TSchema, stored = false): Member<R, C, never> =>
  computed({ name, schema, js: () => null, sql: () => lit('null'), stored });

/** A relationship whose data is always null. */
export const noRelation = <R, C>(name: string): Member<R, C, never> =>
  computed({ name, schema: RelOne, js: () => ({ data: null }), sql: () => obj([['data', lit('null')]]) });

/**
 * A reference value (a port's name or zone, a line's name) that the SQL path leaves as a marker
 * for src/reference/markers.ts to fill in; `resolve` is that module's referenceOf, `code` the
 * row field (JavaScript) and the SQL expression (`t` the alias) of its code.
 */
export const reference = <R, C, const K extends string>(
  name: string,
  schema: TSchema,
  kind: MarkerKind,
  resolve: (kind: MarkerKind, code: string | null) => unknown,
  code: { field: K; sql: (t: string) => string },
  stored = true,
): Member<R, C, K> =>
  computed({
    name,
    schema,
    js: (r) => resolve(kind, (r as Record<string, string | null>)[code.field] ?? null),
    sql: (t) => marker(kind, code.sql(t)),
    stored,
    reads: [code.field],
  });

/** A to-one port relationship from a UN/LOCODE: a marker in SQL, identifier-ordered by `form`. */
export const portRelation = <R, C, const K extends string>(
  name: string,
  resolve: (kind: MarkerKind, code: string | null) => unknown,
  code: { field: K; sql: (t: string) => string },
): Member<R, C, K> =>
  computed({
    name,
    schema: RelOne,
    js: (r) => ({ data: resolve('pi', (r as Record<string, string | null>)[code.field] ?? null) }),
    sql: (t, form) => obj([['data', marker(form === 'data' ? 'pd' : 'pi', code.sql(t))]]),
    reads: [code.field],
  });

// ---- what a declaration gives ------------------------------------------------------------------

const objectOf = (ms: readonly Member<never, never>[]) =>
  Type.Object(Object.fromEntries(ms.map((m) => [m.name, m.schema])));

/** The response schema of the resource. */
export const schemaOf = (d: Declaration<never, never>): TSchema =>
  resourceSchema(
    d.type,
    objectOf(d.attributes),
    d.relationships ? objectOf(d.relationships) : null,
    d.description,
    d.collection !== null,
  );

/**
 * The JavaScript serializer: the resource of one row (any row with the fields the members read), in
 * the members' order.
 */
export function serializerOf<R, C, K extends string>(
  d: Declaration<R, C, K>,
): (row: Pick<R, K & keyof R> & { id: string }, ctx: C) => Resource {
  const { type, attributes, relationships } = d;
  const prefix = d.collection === null ? null : `/${d.collection}/`;
  return (source, ctx) => {
    const row = source as unknown as R;
    const attrs: Record<string, unknown> = {};
    for (const m of attributes) attrs[m.name] = m.js(row, ctx);
    const resource: Resource = { id: source.id, type, attributes: attrs };
    if (relationships) {
      const rels: Record<string, unknown> = {};
      for (const m of relationships) rels[m.name] = m.js(row, ctx);
      resource.relationships = rels as Resource['relationships'];
    }
    if (prefix !== null) resource.links = selfLink(`${prefix}${source.id}`);
    return resource;
  };
}

/** The stored runs of attributes: maximal runs of stored members, each one column. */
export function storedRuns(d: Declaration<never, never>): Array<readonly Member<never, never>[]> {
  const runs: Member<never, never>[][] = [];
  let current: Member<never, never>[] | null = null;
  for (const m of d.attributes) {
    if (!m.stored) current = null;
    else if (current) current.push(m);
    else {
      current = [m];
      runs.push(current);
    }
  }
  return runs;
}

/** The column of the i-th stored run (0-based). */
export const runColumn = (i: number) => `attributes_json_${i + 1}`;

const membersJson = (ms: readonly Member<never, never>[], t: string, form: Form): Members =>
  ms.map((m) => [m.name, m.sql(t, form)]);

/**
 * The resource as SQL JSON text, `t` its row's alias. With `fromStored`, stored runs are read from
 * their columns (and a resource stored whole is its column); without, every member is computed
 * (what the trigger functions write).
 */
export function resourceJson(d: Declaration<never, never>, form: Form, t: string, fromStored: boolean): Json {
  if (fromStored && d.stored === 'whole') return raw(`${t}.resource_json`);
  const attrs: Members = [];
  if (fromStored && d.stored === 'runs') {
    let run = -1;
    let inRun = false;
    for (const m of d.attributes) {
      if (!m.stored) {
        inRun = false;
        attrs.push([m.name, m.sql(t, form)]);
      } else if (!inRun) {
        inRun = true;
        attrs.push([SPLICE, raw(`${t}.${runColumn(++run)}`)]);
      }
    }
  } else attrs.push(...membersJson(d.attributes, t, form));
  const head: Members = [
    ['id', val(`${t}.id::text`)],
    ['type', lit(JSON.stringify(d.type))],
    ['attributes', obj(attrs)],
  ];
  if (d.collection === null) throw new Error(`${d.type}: no SQL document for a resource without links`);
  const links: Json = [...lit('{"self":"/v2'), ...raw(`'/${d.collection}/' || ${t}.id`), ...lit('"}')];
  if (!d.relationships) return obj([...head, ['links', links]]);
  const rels = obj(membersJson(d.relationships, t, form));
  // In `data` the response schema orders the members; in `included` the serializer's order stands.
  return form === 'data'
    ? obj([...head, ['links', links], ['relationships', rels]])
    : obj([...head, ['relationships', rels], ['links', links]]);
}

export { membersJson };
