import { readFileSync } from 'node:fs';
import AjvModule, { type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { REFERENCE_OPENAPI } from '../helpers/reference.ts';

// Both packages are CommonJS with their class/function on `default`.
const Ajv = (AjvModule as any).default ?? AjvModule;
const addFormats = (formatsModule as any).default ?? formatsModule;

// The reference document (openapi.json, OpenAPI 3.0; where it is read from and the skip reason
// where it is absent: test/helpers/reference.ts) as JSON Schema for ajv:
// `nullable` becomes a null branch; examples and other annotations are ignored.

export interface RefOperation {
  method: string;
  path: string;
  tags: string[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export function loadReference(path: string | URL = REFERENCE_OPENAPI.url) {
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  return { doc, ops: operationsOf(doc) };
}

/** The operations of a document (validators read their responses: pass the corrected one). */
export function operationsOf(doc: any): RefOperation[] {
  const ops: RefOperation[] = [];
  for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (method === 'parameters') continue;
      ops.push({ method: method.toUpperCase(), path: p, tags: op.tags ?? [], responses: op.responses ?? {} });
    }
  }
  return ops;
}

function nullableToJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableToJsonSchema);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'example' || k === 'examples' || k === 'nullable') continue;
    out[k] = nullableToJsonSchema(v);
  }
  if ((node as { nullable?: boolean }).nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

/**
 * The reference document's evident bugs, corrected to their intent (docs/api-notes.md lists them):
 * the container model's `type` enum says "account"; to-one relationships omit `nullable` on
 * `data` although JSON:API (and the reference's own examples) give `data: null` when empty.
 */
export function withIntent(doc: any): any {
  const fixed = structuredClone(doc);
  const schemas = fixed.components.schemas;
  schemas.container.properties.type.enum = ['container'];
  // Only a terminal's name is known everywhere: FIRMS codes are US-only, BIC facility codes and
  // nicknames exist for some terminals, addresses are not in the data. Unknown is null.
  for (const [k, v] of Object.entries<any>(schemas.terminal.properties.attributes.properties)) {
    if (k !== 'name') v.nullable = true;
  }
  // A carrier event may name no place; location_locode beside it is nullable already.
  schemas.raw_event.properties.attributes.properties.location_name.nullable = true;
  const included = (path: string) =>
    fixed.paths[path].get.responses['200'].content['application/json'].schema.properties.included;
  // GET /containers takes the includes of GET /containers/{id} but lists only shipments as included.
  included('/containers').items = structuredClone(included('/containers/{id}').items);
  // An example is a delivered payload, whose included records are the notification's related
  // resources (the same as a delivery's), beyond the four types listed here.
  included('/webhook_notifications/examples').items.anyOf.push(
    ...['shipment', 'container', 'port', 'terminal', 'vessel', 'metro_area', 'custom_field'].map((n) => ({
      $ref: `#/components/schemas/${n}`,
    })),
  );
  const visit = (node: any) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const rels = node.properties?.relationships?.properties;
    if (rels && typeof rels === 'object') {
      for (const rel of Object.values<any>(rels)) {
        const data = rel?.properties?.data;
        if (data && data.type === 'object') data.nullable = true;
      }
    }
    for (const v of Object.values(node)) visit(v);
  };
  visit(fixed);
  return fixed;
}

/**
 * Where the live reference service (its recorded answers, test/fixtures/live-responses/) and its
 * published document differ, we follow the live service: each difference, named once, with the
 * change it makes to the document before our answers are validated against it. docs/api-notes.md,
 * "Live over document", lists the same names (test/contract/live-answers.test.ts checks it).
 */
export const LIVE_OVER_DOCUMENT: ReadonlyArray<{ name: string; patch: (doc: any) => void }> = [
  {
    name: 'search results are `search_result` resources',
    patch: (doc) => {
      const ok = doc.paths['/search'].get.responses['200'].content['application/json'].schema;
      const item = ok.properties.data.items;
      item.properties.type.enum = ['search_result'];
      item.properties.attributes.properties.entity_type.enum = ['shipment', 'cargo', 'tracking_request'];
    },
  },
];

/** The document with the live service's differences applied (LIVE_OVER_DOCUMENT). */
export function withLive(doc: any): any {
  const fixed = structuredClone(doc);
  for (const d of LIVE_OVER_DOCUMENT) d.patch(fixed);
  return fixed;
}

/** Validators of each (operation, status) response schema of the reference. */
export function responseValidators(doc: any) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv, ['date-time', 'date', 'uuid']);
  ajv.addFormat('uri', true); // links are relative paths (/v2/...), as JSON:API allows
  ajv.addSchema({ components: nullableToJsonSchema(doc.components) }, 'ref');
  const cache = new Map<string, ValidateFunction | null>();
  return (op: RefOperation, status: number): ValidateFunction | null | undefined => {
    const key = `${op.method} ${op.path} ${status}`;
    if (cache.has(key)) return cache.get(key);
    const res = op.responses[String(status)];
    if (!res) return undefined; // status not documented
    const schema = res.content?.['application/json']?.schema;
    if (!schema) {
      cache.set(key, null);
      return null;
    }
    const rewritten = JSON.parse(
      JSON.stringify(nullableToJsonSchema(schema)).replaceAll('"#/components/', '"ref#/components/'),
    );
    const v = ajv.compile(rewritten);
    cache.set(key, v);
    return v;
  };
}

/**
 * Validators of the `included` members of each (operation, status) response, by member type: the
 * schema of the documented anyOf list whose `type` enum names it (undefined: type not listed).
 */
export function includedValidators(doc: any) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv, ['date-time', 'date', 'uuid']);
  ajv.addFormat('uri', true);
  const components = nullableToJsonSchema(doc.components) as any;
  ajv.addSchema({ components }, 'ref');
  const cache = new Map<string, ValidateFunction | undefined>();
  return (op: RefOperation, status: number, type: string | undefined): ValidateFunction | undefined => {
    const key = `${op.method} ${op.path} ${status} ${type}`;
    if (cache.has(key)) return cache.get(key);
    const items = (op.responses[String(status)]?.content?.['application/json']?.schema as any)?.properties
      ?.included?.items;
    // A branch is a $ref to a component or an inline object schema.
    const branches: any[] = items?.anyOf ?? (items ? [items] : []);
    const schemaOf = (b: any) =>
      b.$ref ? components.schemas[b.$ref.split('/').pop()] : nullableToJsonSchema(b);
    const branch = branches.find((b) => {
      const enumOf = schemaOf(b)?.properties?.type?.enum;
      return Array.isArray(enumOf) && enumOf.includes(type);
    });
    const schema = branch?.$ref
      ? { $ref: branch.$ref.replace('#/components/', 'ref#/components/') }
      : JSON.parse(JSON.stringify(branch ?? null).replaceAll('"#/components/', '"ref#/components/'));
    const v = branch ? ajv.compile(branch.$ref ? schema : nullableToJsonSchema(schema)) : undefined;
    cache.set(key, v);
    return v;
  };
}
