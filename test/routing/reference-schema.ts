import { readFileSync } from 'node:fs';
import AjvModule from 'ajv';
import formatsModule from 'ajv-formats';

// Validators for the routing responses built from the reference document itself
// (shared/reference/openapi.json), so tests check our output against the published schemas.
// Ajv reads OpenAPI's `nullable`; the map's `discriminator` (placed beside oneOf) is dropped, as
// the five property schemas already differ by their feature_type enum.

const doc = JSON.parse(
  readFileSync(new URL('../../../shared/reference/openapi.json', import.meta.url), 'utf8'),
);
// Both packages are CommonJS with their class/function on `default`.
const Ajv = (AjvModule as any).default ?? AjvModule;
const addFormats = (formatsModule as any).default ?? formatsModule;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'ref', components: doc.components });

function responseSchema(path: string): Record<string, any> {
  const s = doc.paths[path].get.responses['200'].content['application/json'].schema;
  return JSON.parse(JSON.stringify(s).replaceAll('"#/components', '"ref#/components'));
}

const mapSchema = responseSchema('/containers/{id}/map_geojson');
delete mapSchema.properties.features.items.properties.properties.discriminator;
const map = ajv.compile(mapSchema);
const positions = ajv.compile(responseSchema('/vessels/{id}/future_positions'));

function check(v: any, value: unknown): string[] {
  if (v(value)) return [];
  return (v.errors ?? []).map((e: any) => `${e.instancePath} ${e.message}`);
}

/** Errors of a map_geojson body against the reference schema (empty when valid). */
export const mapErrors = (value: unknown) => check(map, value);
/** Errors of a future_positions body against the reference schema (empty when valid). */
export const positionsErrors = (value: unknown) => check(positions, value);

/** The reference's own example map, for a sanity check of the validator. */
export const referenceMapExample = () =>
  structuredClone(
    doc.paths['/containers/{id}/map_geojson'].get.responses['200'].content['application/json'].examples[
      'Example Response'
    ].value,
  );
