import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import AjvModule from 'ajv';
import formatsModule from 'ajv-formats';
import { REFERENCE_OPENAPI } from '../helpers/reference.ts';

// Validators for the routing responses built from the reference document itself
// (openapi.json, test/helpers/reference.ts), so tests check our output against the published schemas.
// Ajv reads OpenAPI's `nullable`; the map's `discriminator` (placed beside oneOf) is dropped, as
// the five property schemas already differ by their feature_type enum.
// The document may be absent (a fresh clone): it is read on first use, only by tests that skip
// with REFERENCE_SKIP, and the other tests collect their bodies with `referenceChecks`.

/** node:test's `skip` for tests that need the reference document. */
export const REFERENCE_SKIP = REFERENCE_OPENAPI.skip;

// Both packages are CommonJS with their class/function on `default`.
const Ajv = (AjvModule as any).default ?? AjvModule;
const addFormats = (formatsModule as any).default ?? formatsModule;

let loaded: { doc: any; map: any; positions: any } | undefined;
function reference() {
  if (loaded) return loaded;
  const doc = JSON.parse(readFileSync(REFERENCE_OPENAPI.url, 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'ref', components: doc.components });
  const responseSchema = (path: string): Record<string, any> => {
    const s = doc.paths[path].get.responses['200'].content['application/json'].schema;
    return JSON.parse(JSON.stringify(s).replaceAll('"#/components', '"ref#/components'));
  };
  const mapSchema = responseSchema('/containers/{id}/map_geojson');
  delete mapSchema.properties.features.items.properties.properties.discriminator;
  loaded = {
    doc,
    map: ajv.compile(mapSchema),
    positions: ajv.compile(responseSchema('/vessels/{id}/future_positions')),
  };
  return loaded;
}

function check(v: any, value: unknown): string[] {
  if (v(value)) return [];
  return (v.errors ?? []).map((e: any) => `${e.instancePath} ${e.message}`);
}

/** Errors of a map_geojson body against the reference schema (empty when valid). */
export const mapErrors = (value: unknown) => check(reference().map, value);
/** Errors of a future_positions body against the reference schema (empty when valid). */
export const positionsErrors = (value: unknown) => check(reference().positions, value);

/** The reference's own example map, for a sanity check of the validator. */
export const referenceMapExample = () =>
  structuredClone(
    reference().doc.paths['/containers/{id}/map_geojson'].get.responses['200'].content['application/json']
      .examples['Example Response'].value,
  );

/**
 * Bodies kept by the tests that make them and validated by one test declared last in the suite
 * (`declareTest`), which skips visibly without the reference document while the rest still run.
 */
export function referenceChecks() {
  const bodies: { kind: 'map' | 'positions'; label: string; body: unknown }[] = [];
  return {
    map: (body: unknown, label: string) => bodies.push({ kind: 'map', label, body: structuredClone(body) }),
    positions: (body: unknown, label: string) =>
      bodies.push({ kind: 'positions', label, body: structuredClone(body) }),
    declareTest: () =>
      test('every map and positions body above validates against the reference schemas', {
        skip: REFERENCE_SKIP,
      }, () => {
        assert.ok(bodies.length > 0, 'bodies collected');
        for (const { kind, label, body } of bodies)
          assert.deepEqual(kind === 'map' ? mapErrors(body) : positionsErrors(body), [], label);
      }),
  };
}
