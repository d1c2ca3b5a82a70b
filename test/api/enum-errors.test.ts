import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

// Every enum-valued member of every request body and every enum-valued query parameter, found in
// the service's own OpenAPI document (so a new one is covered without touching this file): a
// value outside the set answers an error that names every allowed value, unions of literals
// included. Sort parameters are plain strings checked by the route; their description lists the
// values ("One of a, b (default …)"), and their error must name each of them too.

type Schema = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  items?: Schema;
  description?: string;
};

const BAD = 'not-an-allowed-value';

/** The closed set of values a schema allows, or null when it allows more. */
function valuesOf(s: Schema): unknown[] | null {
  if (s.enum) return s.enum;
  if ('const' in s) return [s.const];
  if (s.type === 'null') return [null];
  const branches = s.anyOf ?? s.oneOf;
  if (!branches) return null;
  const each = branches.map(valuesOf);
  return each.every((v) => v !== null) ? each.flat() : null;
}

/** Every enum-valued member under a body schema: its JSON pointer (arrays at index 0) and values. */
function enumMembers(s: Schema, pointer = ''): Array<{ pointer: string; values: unknown[] }> {
  const values = valuesOf(s);
  // A lone `null` branch of a nullable open member is no enum.
  if (values && pointer) return values.some((v) => v !== null) ? [{ pointer, values }] : [];
  const found: Array<{ pointer: string; values: unknown[] }> = [];
  for (const [name, child] of Object.entries(s.properties ?? {}))
    found.push(...enumMembers(child, `${pointer}/${name}`));
  if (s.items) found.push(...enumMembers(s.items, `${pointer}/0`));
  for (const branch of s.anyOf ?? s.oneOf ?? []) found.push(...enumMembers(branch, pointer));
  return found;
}

/** A body holding only `value` at `pointer` (objects and arrays made on the way). */
function bodyWith(pointer: string, value: unknown): unknown {
  const parts = pointer.split('/').slice(1);
  const root: Record<string, unknown> = {};
  let at: any = root;
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const next = last ? value : parts[i + 1] === '0' ? [] : {};
    if (Array.isArray(at)) at.push(next);
    else at[part] = next;
    at = next;
  });
  return root;
}

/** The values the detail leaves out: schema values as JSON ("a"), a sort's as words (-a, a). */
const unnamed = (detail: string, values: unknown[], quoted = true) =>
  values.filter((v) =>
    quoted ? !detail.includes(JSON.stringify(v)) : !new RegExp(`(^|[\\s,:])${v}([\\s,.]|$)`).test(detail),
  );

for (const engine of ENGINES) {
  describe(`enum errors name every allowed value [${engine}]`, () => {
    let t: TestApp;
    let doc: { paths: Record<string, Record<string, any>> };
    before(async () => {
      t = await startTestApp(engine);
      doc = (await t.request('GET', '/v2/openapi.json')).body;
    });
    after(() => t.close());

    test('request_type "booking" names bill_of_lading, booking_number and container', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: {
          data: { type: 'tracking_request', attributes: { request_type: 'booking', request_number: 'X1' } },
        },
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(
        res.body.errors[0].detail,
        'request_type must be one of: "bill_of_lading", "booking_number", "container".',
      );
    });

    test('every enum-valued body member and query parameter of the OpenAPI document', async (ctx) => {
      const failures: string[] = [];
      let checked = 0;
      for (const [path, methods] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(methods)) {
          const params: any[] = op.parameters ?? [];
          const target = path.replace(/\{[^}]+\}/g, () => randomUUID());
          const send = (query: string, body?: unknown) =>
            t.request(method.toUpperCase(), `${target}${query}`, body === undefined ? {} : { body });
          for (const p of params.filter((p) => p.in === 'query')) {
            const fromDescription = /^One of (.+?) \(default/.exec(
              p.schema?.description ?? p.description ?? '',
            );
            const enumerated = valuesOf(p.schema ?? {});
            const values = enumerated ?? (p.name === 'sort' ? fromDescription?.[1]?.split(', ') : null);
            if (!values) continue;
            checked++;
            const res = await send(`?${encodeURIComponent(p.name)}=${BAD}`);
            const error = res.body?.errors?.find((e: any) => e.source?.parameter === p.name);
            const missing = error ? unnamed(String(error.detail), values, enumerated !== null) : values;
            if (res.status !== 400 || missing.length)
              failures.push(
                `${method} ${path} ?${p.name}: ${res.status} ${res.text.slice(0, 300)} misses ${missing}`,
              );
          }
          const schema = op.requestBody?.content?.['application/json']?.schema;
          if (!schema) continue;
          for (const { pointer, values } of enumMembers(schema)) {
            checked++;
            const res = await send('', bodyWith(pointer, BAD));
            const error = res.body?.errors?.find((e: any) => e.source?.pointer === pointer);
            const missing = error ? unnamed(String(error.detail), values) : values;
            if (res.status !== 422 || missing.length)
              failures.push(
                `${method} ${path} ${pointer}: ${res.status} ${res.text.slice(0, 300)} misses ${missing}`,
              );
          }
        }
      }
      ctx.diagnostic(`${checked} enum-valued members and parameters checked`);
      assert.ok(checked >= 10, `only ${checked} found`);
      assert.deepEqual(failures, []);
    });
  });
}
