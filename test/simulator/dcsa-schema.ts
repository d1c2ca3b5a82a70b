import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { bundledReference } from '../helpers/reference.ts';

// A small validator for the subset of JSON Schema the DCSA T&T 2.2 event schemas use ($ref,
// allOf, anyOf, required, properties, items, type, enum, maxLength, format), so tests check the
// simulator's events against the published 2.2 definitions rather than against our own idea.

type Schema = Record<string, unknown>;

const spec = parse(readFileSync(bundledReference('dcsa-tnt-v2.2.yaml'), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};
const schemas = spec.components.schemas;
// DCSA T&T 3.0.0 (its copy in test/fixtures, see NOTICE): the simulator's /v3/events.
const schemasV3 = (
  parse(readFileSync(new URL('../fixtures/dcsa-v3/dcsa-tnt-v3.0.0.yaml', import.meta.url), 'utf8')) as {
    components: { schemas: Record<string, Schema> };
  }
).components.schemas;

export const EVENT_SCHEMA = {
  TRANSPORT: 'transportEvent',
  SHIPMENT: 'shipmentEvent',
  EQUIPMENT: 'equipmentEvent',
} as const;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function schemaNamed(name: string, from: Record<string, Schema> = schemas): Schema {
  const s = from[name];
  if (!s) throw new Error(`no schema ${name}`);
  return s;
}

/** Errors of `value` against `schema` ("$.path: problem"); empty when valid. */
export function validate(
  value: unknown,
  schema: Schema,
  path = '$',
  from: Record<string, Schema> = schemas,
): string[] {
  if (typeof schema.$ref === 'string')
    return validate(value, schemaNamed(schema.$ref.split('/').pop()!, from), path, from);
  const errors: string[] = [];
  for (const sub of (schema.allOf as Schema[] | undefined) ?? [])
    errors.push(...validate(value, sub, path, from));
  if (
    Array.isArray(schema.anyOf) &&
    !schema.anyOf.some((s: Schema) => validate(value, s, path, from).length === 0)
  ) {
    errors.push(`${path}: matches none of anyOf`);
  }
  if (value === null || value === undefined) return errors;
  const type = schema.type as string | undefined;
  const actual = Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;
  if (type && !(type === actual || (type === 'number' && actual === 'integer'))) {
    errors.push(`${path}: expected ${type}, got ${actual}`);
    return errors;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    errors.push(`${path}: ${JSON.stringify(value)} not in enum`);
  }
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) {
      errors.push(`${path}: longer than ${schema.maxLength}`);
    }
    if (schema.format === 'date-time' && !DATE_TIME.test(value)) errors.push(`${path}: not a date-time`);
    if (schema.format === 'uuid' && !UUID.test(value)) errors.push(`${path}: not a uuid`);
  }
  if (typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const key of (schema.required as string[] | undefined) ?? []) {
      if (!(key in obj)) errors.push(`${path}: missing required ${key}`);
    }
    for (const [key, sub] of Object.entries(
      (schema.properties as Record<string, Schema> | undefined) ?? {},
    )) {
      if (key in obj) errors.push(...validate(obj[key], sub, `${path}.${key}`, from));
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((item, i) => {
      errors.push(...validate(item, schema.items as Schema, `${path}[${i}]`, from));
    });
  }
  return errors;
}

/** Errors of one DCSA event against the 2.2 schema for its eventType. */
export function validateEvent(event: { eventType: string }): string[] {
  const name = EVENT_SCHEMA[event.eventType as keyof typeof EVENT_SCHEMA];
  if (!name) return [`$.eventType: unknown ${event.eventType}`];
  return validate(event, schemaNamed(name));
}

/** Errors of a GET /events answer against the 3.0.0 GetEventsResponse schema. */
export function validateV3Response(body: unknown): string[] {
  return validate(body, schemaNamed('GetEventsResponse', schemasV3), '$', schemasV3);
}
