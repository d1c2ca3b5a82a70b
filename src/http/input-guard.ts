import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError, type ErrorCode, type ErrorObject } from '../errors.ts';
import { LIMITS } from './limits.ts';

// One pass over everything a request brings, before schemas and services: what PostgreSQL cannot
// store (NUL in text, lone UTF-16 surrogates, numbers no column type keeps exactly) or what no field needs
// (huge strings, arrays, objects) is refused here with a precise JSON:API error, the same on
// both engines. Doing it generically means no route, filter or batch can forget it, and one
// account's bad input never reaches a statement shared with others.

type Problem = Omit<ErrorObject, 'status' | 'title'>;

const MAX_PROBLEMS = 20;

function textProblem(value: string, max: number): { detail: string; code: ErrorCode } | null {
  if (value.includes('\u0000'))
    return { detail: 'must not contain NUL (\\u0000) characters', code: 'invalid_characters' };
  if (!value.isWellFormed()) {
    return { detail: 'must not contain unpaired UTF-16 surrogates', code: 'invalid_characters' };
  }
  if (value.length > max) return { detail: `must be at most ${max} characters long`, code: 'too_long' };
  return null;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Problems of a parsed JSON body, each with the pointer of the offending value or member. */
export function bodyProblems(body: unknown): Problem[] {
  const problems: Problem[] = [];
  const add = (pointer: string, detail: string, code: ErrorCode) => {
    if (problems.length < MAX_PROBLEMS) problems.push({ source: { pointer }, detail, code });
  };
  // Depth is bounded by the body parser (LIMITS.jsonDepth), so recursion is safe.
  const walk = (value: unknown, pointer: string): void => {
    if (problems.length >= MAX_PROBLEMS) return;
    if (typeof value === 'string') {
      const p = textProblem(value, LIMITS.stringLength);
      if (p) add(pointer, `${label(pointer)} ${p.detail}.`, p.code);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
        add(
          pointer,
          `${label(pointer)} is out of range (integers up to ±${Number.MAX_SAFE_INTEGER}).`,
          'out_of_range',
        );
      }
    } else if (Array.isArray(value)) {
      if (value.length > LIMITS.arrayLength) {
        add(pointer, `${label(pointer)} must have at most ${LIMITS.arrayLength} entries.`, 'too_long');
        return;
      }
      for (let i = 0; i < value.length; i++) walk(value[i], `${pointer}/${i}`);
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      if (keys.length > LIMITS.objectMembers) {
        add(pointer, `${label(pointer)} must have at most ${LIMITS.objectMembers} members.`, 'too_long');
        return;
      }
      for (const k of keys) {
        const at = `${pointer}/${escapePointer(k)}`;
        const p = textProblem(k, LIMITS.stringLength);
        if (p) add(at, `Member name ${p.detail}.`, p.code);
        else walk((value as Record<string, unknown>)[k], at);
      }
    }
  };
  walk(body, '');
  return problems;
}

function label(pointer: string): string {
  const parts = pointer.split('/').slice(1);
  const name = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
  const last = parts.pop();
  if (last === undefined) return 'The document';
  if (!/^\d+$/.test(last)) return name(last);
  const parent = parts.pop();
  return parent === undefined ? `Entry ${last}` : `${name(parent)} entry ${last}`;
}

/** Problems of decoded query or path parameters, each naming the parameter. */
export function parameterProblems(values: unknown, max: number): Problem[] {
  const problems: Problem[] = [];
  if (!values || typeof values !== 'object') return problems;
  for (const [name, raw] of Object.entries(values)) {
    const nameProblem = textProblem(name, LIMITS.queryValueLength);
    const shownName = nameProblem ? 'query' : name;
    if (nameProblem) {
      problems.push({
        source: { parameter: shownName },
        detail: `A parameter name ${nameProblem.detail}.`,
        code: 'invalid_parameter',
      });
      continue;
    }
    for (const v of Array.isArray(raw) ? raw : [raw]) {
      if (typeof v !== 'string') continue;
      const p = textProblem(v, max);
      if (p) {
        problems.push({
          source: { parameter: name },
          detail: `${name} ${p.detail}.`,
          code: 'invalid_parameter',
        });
        break;
      }
    }
    if (problems.length >= MAX_PROBLEMS) break;
  }
  return problems;
}

/**
 * The first query parameter whose percent-encoding is malformed or does not decode to UTF-8
 * (`%E0%A4%A`, `%zz`, an encoded lone surrogate), or null. The query parser would otherwise keep
 * such text undecoded and the value would mean something else than the client sent.
 */
export function badlyEncodedParameter(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  for (const part of url.slice(q + 1).split('&')) {
    if (!part.includes('%')) continue;
    try {
      decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      const name = part.split('=')[0] ?? '';
      try {
        return decodeURIComponent(name.replace(/\+/g, ' ')) || 'query';
      } catch {
        return 'query';
      }
    }
  }
  return null;
}

function reject(status: number, problems: Problem[]): never {
  throw new ApiError(status, problems);
}

/** Registers the checks: URL shape on request (before authentication), values before validation. */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const url = request.raw.url ?? '';
    if (url.length > LIMITS.urlLength) {
      reject(414, [
        { detail: `The URL is longer than ${LIMITS.urlLength} characters.`, code: 'uri_too_long' },
      ]);
    }
    const bad = badlyEncodedParameter(url);
    if (bad !== null) {
      reject(400, [
        {
          source: { parameter: bad },
          detail: `The query parameter ${bad} is not valid percent-encoded UTF-8.`,
          code: 'invalid_encoding',
        },
      ]);
    }
  });
  app.addHook('preValidation', async (request: FastifyRequest) => {
    const params = parameterProblems(request.params, LIMITS.pathParamLength);
    if (params.length) reject(400, params);
    const query = parameterProblems(request.query, LIMITS.queryValueLength);
    if (query.length) reject(400, query);
    // Only parsed JSON is walked: raw uploads (a Buffer, a multipart stream) are bytes, not members.
    if (
      request.body !== undefined &&
      request.body !== null &&
      typeof request.body === 'object' &&
      !Buffer.isBuffer(request.body)
    ) {
      const body = bodyProblems(request.body);
      if (body.length) reject(422, body);
    }
  });
}
