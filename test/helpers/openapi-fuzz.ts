import fc from 'fast-check';

// Requests generated from the service's own OpenAPI document: every operation, its path and
// query parameters and its JSON body, built from the published schemas (so what a client may
// send), then spiked with hostile values (NUL, lone surrogates, huge numbers, year 0, deep
// nesting, malformed percent-encoding, invalid UTF-8) where a client may put anything.

export interface Operation {
  method: string;
  path: string;
  params: Array<{ in: 'path' | 'query'; name: string; schema: Schema }>;
  body?: Schema;
}

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded (possibly malformed on purpose). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  label: string;
}

type Schema = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  maxItems?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
};

export function operationsOf(doc: {
  paths: Record<string, Record<string, { parameters?: any[]; requestBody?: any }>>;
}): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: (op.parameters ?? []).filter((p) => p.in === 'path' || p.in === 'query'),
        body: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return ops;
}

/** Strings a database or a parser may choke on. */
export const HOSTILE_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\ud83d',
  '😀\u0000',
  '0000-01-01',
  '0000-01-01T00:00:00Z',
  '0000-12-31T23:59:59.999Z',
  '10000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-04-31',
  '0001-01-01T00:00:00+14:00',
  '9999-12-31T23:59:59-14:00',
  '99999999999999999999',
  '-9223372036854775809',
  '9223372036854775808',
  '2147483648',
  '1e400',
  'NaN',
  '',
  ' ',
  '\t\n',
  'x'.repeat(10_001),
  '\u202e\u200b',
  "'; drop table accounts; --",
  '../../etc/passwd',
  '\\',
  '"',
  '%',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
];

/** Raw percent-encodings put into a URL as they are. */
const HOSTILE_ENCODINGS = [
  '%',
  '%E0%A4%A',
  '%zz',
  '%C0%80',
  '%ED%A0%80',
  '%FF',
  '%00',
  '%2F',
  '%25',
  '%u0000',
];

/** Number literals written into JSON bodies as they are (JSON.stringify cannot write 1e400). */
const RAW_NUMBERS = ['1e400', '-1e400', '9007199254740993', '18446744073709551616', '-0', '1e-400', '0.1'];

const hostileString = fc.constantFrom(...HOSTILE_STRINGS);

/** Values a well-behaved client sends, so that generated requests also get past validation. */
const PLAUSIBLE = [
  'MSCU',
  'MAEU',
  'bill_of_lading',
  'container',
  'MSCU1234567',
  'MSKU9070323',
  'http://127.0.0.1:9/hook',
  'tracking_request.succeeded',
  'container.transport.vessel_arrived',
  'failed',
  'true',
  '1',
  '2024-05-01T00:00:00Z',
  'tracked_object',
  'containers',
];

const realDate = fc
  .date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());

const dateLike = (hostile: boolean) =>
  hostile
    ? fc.oneof(
        hostileString,
        realDate,
        fc
          .tuple(
            fc.integer({ min: 0, max: 10_000 }),
            fc.integer({ min: 0, max: 13 }),
            fc.integer({ min: 0, max: 32 }),
          )
          .map(
            ([y, m, d]) =>
              `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
          ),
      )
    : realDate;

const tag = fc.stringMatching(/^[A-Za-z0-9-]{1,20}$/);

/** Plausible values of body members by name, so that well-formed requests often succeed. */
const BY_NAME: Record<string, fc.Arbitrary<string>> = {
  scac: fc.constantFrom('MSCU', 'MAEU', 'CMDU', 'HLCU', 'TEST'),
  request_number: fc.stringMatching(/^[A-Z]{4}[0-9]{6,8}$/),
  number: fc.constantFrom('MSCU1234567', 'MEDUAB123456', 'MSKU9070323', '123456789'),
  url: fc.constant('http://127.0.0.1:9/hook'),
  event: fc.constantFrom(
    'tracking_request.succeeded',
    'tracking_request.failed',
    'container.transport.vessel_arrived',
  ),
  events: fc.constantFrom(
    'tracking_request.succeeded',
    'tracking_request.failed',
    'container.transport.vessel_arrived',
  ),
  name: fc.constantFrom('X-Custom', 'X-Team'),
  value: tag,
  ref_numbers: tag,
  ref_number: tag,
  tags: tag,
  shipment_tags: tag,
  secret: fc.constant('whsec_fuzz'),
  include: fc.constantFrom(
    'tracked_object',
    'containers',
    'shipment',
    'webhook',
    'reference_object',
    'vessel',
  ),
  'filter[status]': fc.constantFrom('pending', 'created'),
};

function textArb(s: Schema, hostile: boolean, name?: string): fc.Arbitrary<string> {
  const max = Math.min(s.maxLength ?? 40, 40);
  if (s.format === 'uuid') return hostile ? fc.oneof(fc.uuid(), hostileString) : fc.uuid();
  if (s.format === 'date-time') return dateLike(hostile);
  if (!hostile && name && BY_NAME[name]) return BY_NAME[name];
  if (!hostile) {
    return fc
      .oneof(fc.constantFrom(...PLAUSIBLE), fc.stringMatching(/^[A-Z0-9]{1,12}$/))
      .map((v) => v.slice(0, max));
  }
  return fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: max, unit: 'binary' }) },
    { weight: 2, arbitrary: hostileString },
    { weight: 1, arbitrary: fc.string({ maxLength: max, unit: 'grapheme' }) },
  );
}

/** A value for a schema: what it describes, and when hostile, sometimes anything at all. */
export function valueArb(
  s: Schema | undefined,
  markers: Map<string, string>,
  hostile: boolean,
  depth = 0,
  name?: string,
): fc.Arbitrary<unknown> {
  const anything = hostileValueArb(markers);
  if (!s || depth > 6) return hostile ? anything : fc.constant(null);
  let arb: fc.Arbitrary<unknown>;
  if (s.anyOf) arb = fc.oneof(...s.anyOf.map((x) => valueArb(x, markers, hostile, depth + 1, name)));
  else if (s.enum) arb = fc.constantFrom(...s.enum);
  else if (s.const !== undefined) arb = fc.constant(s.const);
  else if (s.type === 'object') {
    const props = s.properties ?? {};
    const required = new Set(s.required ?? []);
    const entries = Object.entries(props).map(([k, v]) => {
      const value = valueArb(v, markers, hostile, depth + 1, k);
      return [k, required.has(k) ? value : fc.option(value, { nil: undefined, freq: 2 })] as const;
    });
    arb = fc
      .record(Object.fromEntries(entries))
      .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  } else if (s.type === 'array') {
    arb = fc.array(valueArb(s.items, markers, hostile, depth + 1, name), {
      maxLength: Math.min(s.maxItems ?? 5, 5),
    });
  } else if (s.type === 'string') arb = textArb(s, hostile, name);
  else if (s.type === 'boolean') arb = fc.boolean();
  else if (s.type === 'integer' || s.type === 'number') arb = fc.integer();
  else if (s.type === 'null') arb = fc.constant(null);
  else arb = hostile ? anything : fc.constant(null);
  return hostile ? fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: anything }) : arb;
}

function hostileValueArb(markers: Map<string, string>): fc.Arbitrary<unknown> {
  const raw = fc.constantFrom(...RAW_NUMBERS).map((n) => {
    const marker = `__raw_number_${markers.size}__`;
    markers.set(marker, n);
    return marker;
  });
  return fc.oneof(
    hostileString,
    raw,
    fc.constantFrom(null, true, false, 0, -1, 2 ** 53, -(2 ** 63), 1e308, [], {}),
    fc.integer({ min: 30, max: 40 }).map((d) => nest(d)),
    fc.constant(Array(1_001).fill(1)),
    fc.dictionary(fc.string({ maxLength: 5 }), hostileString, { maxKeys: 3 }),
  );
}

function nest(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { d: v };
  return v;
}

/** encodeURIComponent that also writes lone surrogates (as the invalid UTF-8 a client might send). */
function encodeLoose(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return [...s].map((ch) => (ch.isWellFormed() ? encodeURIComponent(ch) : '%ED%A0%80')).join('');
  }
}

function paramText(schema: Schema, name: string, ids: string[], hostile: boolean): fc.Arbitrary<string> {
  const typed = /_at\]|timestamp/.test(name)
    ? dateLike(hostile)
    : (valueArb(schema, new Map(), hostile).map((v) =>
        typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
      ) as fc.Arbitrary<string>);
  if (!hostile) {
    const plausible = BY_NAME[name] ?? typed;
    return fc.oneof(
      { weight: 1, arbitrary: plausible.map(encodeLoose) },
      { weight: /(^|_)id$|^api_slug$/.test(name) ? 4 : 0, arbitrary: fc.constantFrom(...ids) },
    );
  }
  return fc.oneof(
    { weight: 8, arbitrary: typed.map(encodeLoose) },
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_ENCODINGS) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(typed, fc.constantFrom(...HOSTILE_ENCODINGS))
        .map(([t, e]) => `${encodeLoose(t).slice(0, 20)}${e}`),
    },
  );
}

const BROKEN_BODIES = [
  Buffer.from('{"data":'),
  Buffer.from(`{"data":${'['.repeat(5000)}${']'.repeat(5000)}}`),
  Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  Buffer.from('{"__proto__":{"admin":true}}'),
  Buffer.from('{"data":{"attributes":{"a\\u0000":1}}}'),
  Buffer.from(''),
];

/**
 * One request for one of the operations; `hostile` decides whether it is spiked. `ids` are real
 * ids of the account's records.
 */
function operationRequest(
  op: Operation,
  ids: IdPools,
  key: string,
  hostile: boolean,
): fc.Arbitrary<FuzzRequest> {
  const markers = new Map<string, string>();
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const path = fc
    .tuple(...pathParams.map((p) => paramText(p.schema, p.name, idsFor(ids, op.path, p.name), hostile)))
    .map((values) => {
      let out = op.path;
      pathParams.forEach((p, i) => {
        out = out.replace(`{${p.name}}`, values[i] || 'x');
      });
      return out;
    });
  const extraParam = hostile
    ? fc.oneof(
        { weight: 6, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.tuple(
            fc.constantFrom('unknown', 'filter[nope]', 'page', '%00', '\u0000'),
            hostileString,
          ),
        },
      )
    : fc.constant(null);
  const query = fc
    .tuple(
      fc.subarray(queryParams, { maxLength: hostile ? queryParams.length : Math.min(2, queryParams.length) }),
      extraParam,
    )
    .chain(([chosen, extra]) =>
      fc.tuple(
        fc.constant(chosen),
        fc.tuple(...chosen.map((p) => paramText(p.schema, p.name, Object.values(ids).flat(), hostile))),
        fc.constant(extra),
      ),
    )
    .map(([chosen, values, extra]) => {
      const parts = chosen.map((p, i) => `${encodeLoose(p.name)}=${values[i]}`);
      if (extra) parts.push(`${encodeLoose(extra[0])}=${encodeLoose(extra[1])}`);
      return parts.length ? `?${parts.join('&')}` : '';
    });
  const generated = op.body
    ? valueArb(op.body, markers, hostile).map((v) => Buffer.from(serialize(v, markers)))
    : fc.constant(undefined);
  const body = hostile
    ? fc.oneof(
        { weight: 10, arbitrary: generated },
        { weight: 1, arbitrary: fc.constantFrom(...BROKEN_BODIES) },
        { weight: 1, arbitrary: fc.constant(Buffer.from('{"unexpected":"body"}')) },
      )
    : generated;
  const contentType = hostile
    ? fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/vnd.api+json') },
        { weight: 4, arbitrary: fc.constant('application/json; charset=utf-8') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('text/plain', 'application/xml', 'application/json; charset=latin1', ''),
        },
      )
    : fc.constantFrom('application/vnd.api+json', 'application/json');
  const auth = hostile
    ? fc.oneof(
        { weight: 30, arbitrary: fc.constant(`Token ${key}`) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            '',
            'Token ',
            'Bearer x',
            `Token ${key}x`,
            'Token trk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
          ),
        },
      )
    : fc.constant(`Token ${key}`);
  return fc
    .record({ path, query, body, contentType, auth })
    .map(({ path, query, body, contentType, auth }) => {
      const headers: Record<string, string> = {};
      if (auth) headers.authorization = auth;
      if (body !== undefined && contentType) headers['content-type'] = contentType;
      return {
        method: op.method,
        target: `${path}${query}`,
        headers,
        body,
        label: `${op.method} ${op.path}`,
      };
    });
}

/**
 * The real ids worth trying for a path parameter: those of the collection the parameter follows
 * (`/shipments/{id}` -> the `shipments` pool), so a well-formed request often names a record that
 * exists; every id when the collection has no pool.
 */
export type IdPools = Record<string, string[]>;
function idsFor(pools: IdPools, path: string, name: string): string[] {
  const segment = path.split(`/{${name}}`)[0]!.split('/').pop() ?? '';
  const all = [...new Set(Object.values(pools).flat())];
  return pools[segment]?.length ? pools[segment]! : all;
}

/** Requests over all operations: one in four well-formed, the rest spiked with hostile input. */
export function requestArb(ops: Operation[], ids: IdPools, key: string): fc.Arbitrary<FuzzRequest> {
  return fc
    .tuple(
      fc.constantFrom(...ops),
      fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 3, arbitrary: fc.constant(true) }),
    )
    .chain(([op, hostile]) => operationRequest(op, ids, key, hostile));
}

function serialize(value: unknown, markers: Map<string, string>): string {
  let text = JSON.stringify(value) ?? 'null';
  for (const [marker, raw] of markers) text = text.replaceAll(`"${marker}"`, raw);
  return text;
}
