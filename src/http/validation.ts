import type { FastifySchemaValidationError } from 'fastify';
import { ApiError, type ErrorCode, type ErrorObject } from '../errors.ts';

// Turns schema-validation failures into precise JSON:API errors: a body problem points at the
// offending member (`source.pointer`), a query problem names the parameter (`source.parameter`).

function describe(
  e: FastifySchemaValidationError,
  where: string,
): { at: string; detail: string; code: ErrorCode } {
  const params = e.params as Record<string, unknown>;
  const base = e.instancePath || '';
  switch (e.keyword) {
    case 'required': {
      const name = String(params.missingProperty);
      return { at: `${base}/${name}`, detail: `${name} is required.`, code: 'blank' };
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      return {
        at: `${base}/${name}`,
        detail: where === 'querystring' ? `Unknown query parameter "${name}".` : `Unknown member "${name}".`,
        code: where === 'querystring' ? 'invalid_parameter' : 'unknown_attribute',
      };
    }
    case 'type':
      return {
        at: base,
        detail: `${label(base)} must be of type ${String(params.type)}.`,
        code: 'invalid_type',
      };
    case 'enum':
    case 'const': {
      const allowed = (params.allowedValues as unknown[] | undefined) ?? [params.allowedValue];
      return {
        at: base,
        detail: `${label(base)} must be one of: ${allowed.map((v) => JSON.stringify(v)).join(', ')}.`,
        code: 'invalid_value',
      };
    }
    case 'maxLength':
    case 'maxItems':
      return { at: base, detail: `${label(base)} ${e.message ?? 'is too long'}.`, code: 'too_long' };
    case 'minLength':
      return { at: base, detail: `${label(base)} can't be blank.`, code: 'blank' };
    case 'uniqueItems':
      return { at: base, detail: `${label(base)} must not contain duplicates.`, code: 'not_unique' };
    default:
      return { at: base, detail: `${label(base)} ${e.message ?? 'is invalid'}.`, code: 'invalid' };
  }
}

function label(pointer: string): string {
  const last = pointer.split('/').filter(Boolean).pop();
  return last ? last.replace(/~1/g, '/').replace(/~0/g, '~') : 'The document';
}

/**
 * A union whose every branch is a closed set of values (literals, enums, null) failed as a whole:
 * one `enum` error naming the values of every branch, in place of the branches' own errors (each
 * of which names only its own values). Other unions are left to their branches' first error.
 */
function mergeUnions(errors: FastifySchemaValidationError[]): FastifySchemaValidationError[] {
  const replaced = new Set<FastifySchemaValidationError>();
  const merged = new Map<FastifySchemaValidationError, FastifySchemaValidationError>();
  for (const union of errors) {
    if (union.keyword !== 'anyOf' && union.keyword !== 'oneOf') continue;
    const prefix = `${union.schemaPath}/`;
    const branches = new Map<string, { values: unknown[]; open: boolean }>();
    const members = errors.filter(
      (e) => e.instancePath === union.instancePath && e.schemaPath.startsWith(prefix),
    );
    for (const e of members) {
      const index = e.schemaPath.slice(prefix.length).split('/')[0]!;
      const branch = branches.get(index) ?? { values: [], open: false };
      branches.set(index, branch);
      const params = e.params as Record<string, unknown>;
      if (e.keyword === 'enum') branch.values.push(...((params.allowedValues as unknown[]) ?? []));
      else if (e.keyword === 'const') branch.values.push(params.allowedValue);
      else if (e.keyword === 'type' && params.type === 'null') branch.values.push(null);
      else if (e.keyword !== 'type') branch.open = true;
    }
    if (branches.size === 0 || [...branches.values()].some((b) => b.open || b.values.length === 0)) continue;
    const allowedValues = [...new Set([...branches.values()].flatMap((b) => b.values))];
    for (const e of members) replaced.add(e);
    merged.set(union, { ...union, keyword: 'enum', params: { allowedValues } });
  }
  return errors.filter((e) => !replaced.has(e)).map((e) => merged.get(e) ?? e);
}

export function validationError(errors: FastifySchemaValidationError[], context: string): ApiError {
  const seen = new Set<string>();
  const objects: ErrorObject[] = [];
  const isQuery = context === 'querystring' || context === 'params';
  // anyOf/oneOf produce noise from every branch; keep the first error per location.
  for (const e of mergeUnions(errors)) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const d = describe(e, context);
    if (seen.has(d.at)) continue;
    seen.add(d.at);
    if (isQuery) {
      const parameter = d.at.replace(/^\//, '').replace(/~1/g, '/').replace(/~0/g, '~') || 'query';
      objects.push({
        status: '400',
        title: 'Bad Request',
        source: { parameter },
        detail: d.detail,
        code: d.code === 'invalid_parameter' ? d.code : 'invalid_parameter',
      });
    } else {
      objects.push({
        status: '422',
        title: 'Unprocessable Entity',
        source: { pointer: d.at || '/' },
        detail: d.detail,
        code: d.code,
      });
    }
  }
  const status = isQuery ? 400 : 422;
  return new ApiError(
    status,
    objects.length ? objects.map(({ status: _s, ...rest }) => rest) : [{ detail: 'Invalid request.' }],
  );
}
