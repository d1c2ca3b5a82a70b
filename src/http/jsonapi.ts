import { badParameter } from '../errors.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page } from '../util/page.ts';
import { parseDateTime } from './date-time.ts';

// Request parsing shared by JSON:API routes: page, include and date parameters. A bad value is a
// 400 naming the parameter. Building documents is src/jsonapi/resource.ts.

function positiveInt(
  parameter: string,
  raw: string | undefined,
  fallback: number,
  max: number,
  cap = false,
): number {
  if (raw === undefined) return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw badParameter(parameter, `${parameter} must be a positive integer, got "${raw}".`);
  }
  const n = Number(raw);
  // The reference caps an oversized page instead of rejecting it; the links show the real size.
  if (n > max && cap) return max;
  if (n > max) throw badParameter(parameter, `${parameter} must be at most ${max}, got ${n}.`);
  return n;
}

export function parsePage(query: Record<string, string | undefined>): Page {
  return {
    number: positiveInt('page[number]', query['page[number]'], 1, 1_000_000),
    size: positiveInt('page[size]', query['page[size]'], DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, true),
  };
}

/** Parses `include=a,b.c` against the paths a route supports; an unknown path is a 400. */
export function parseInclude(
  raw: string | undefined,
  allowed: readonly string[],
  defaults: string[] = [],
): Set<string> {
  if (raw === undefined) return new Set(defaults);
  const paths = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const p of paths) {
    if (!allowed.includes(p)) {
      throw badParameter(
        'include',
        allowed.length
          ? `Unknown include path "${p}". Allowed: ${allowed.join(', ')}.`
          : `This endpoint supports no include paths, got "${p}".`,
        'invalid_include',
      );
    }
  }
  return new Set(paths);
}

/** `filter[created_at][start]` style date or date-time parameter (strict: see date-time.ts). */
export function parseDateParam(query: Record<string, string | undefined>, name: string): Date | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const d = parseDateTime(raw);
  if (!d) {
    const shown = raw.length > 64 ? `${raw.slice(0, 64)}…` : raw;
    throw badParameter(
      name,
      `${name} must be an ISO 8601 date or date-time with a real calendar date in the years 0001-9999, e.g. 2024-05-01 or 2024-05-01T12:00:00Z, got "${shown}".`,
    );
  }
  return d;
}
