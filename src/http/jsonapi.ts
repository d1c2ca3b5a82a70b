import { parseDateTime } from './date-time.ts';
import { badParameter } from './errors.ts';

// The small JSON:API layer every resource shares: envelopes, relationships, pagination links,
// include parsing. Serializers build plain objects with these helpers.

export type Identifier = { type: string; id: string };
export type Relationship = { data: Identifier | Identifier[] | null; links?: Record<string, string> };

export interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, Relationship>;
  links?: { self: string };
}

export const API_PREFIX = '/v2';

export function selfLink(path: string): { self: string } {
  return { self: `${API_PREFIX}${path}` };
}

export const one = (type: string, id: string | null | undefined): Relationship => ({
  data: id ? { type, id } : null,
});

export const many = (type: string, ids: string[]): Relationship => ({
  data: ids.map((id) => ({ type, id })),
});

// Moved to util/ so the engine can use it without importing the HTTP layer.
export { iso } from '../util/iso.ts';

export interface Page {
  number: number;
  size: number;
}

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 100;

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

export interface ListLinks {
  self: string;
  current: string;
  first: string;
  last: string;
  prev?: string;
  next?: string;
}

/** Pagination links; keeps every other query parameter of the request as it was. */
export function pageLinks(
  baseUrl: string,
  path: string,
  query: Record<string, string | undefined>,
  page: Page,
  total: number,
): ListLinks {
  const lastPage = Math.max(1, Math.ceil(total / page.size));
  const url = (n: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined && k !== 'page[number]' && k !== 'page[size]') params.set(k, v);
    }
    params.set('page[number]', String(n));
    params.set('page[size]', String(page.size));
    return `${baseUrl}${API_PREFIX}${path}?${params.toString()}`;
  };
  const links: ListLinks = {
    self: url(page.number),
    current: url(page.number),
    first: url(1),
    last: url(lastPage),
  };
  if (page.number > 1) links.prev = url(Math.min(page.number - 1, lastPage));
  if (page.number < lastPage) links.next = url(page.number + 1);
  return links;
}

/** Collects included resources once each, in first-seen order. */
export class Included {
  readonly #seen = new Set<string>();
  readonly items: Resource[] = [];
  add(resource: Resource | null | undefined): void {
    if (!resource) return;
    const key = `${resource.type}:${resource.id}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.items.push(resource);
  }
}
