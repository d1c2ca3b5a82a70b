import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { lastPageNumber, type Page } from '../util/page.ts';

// The small JSON:API layer every resource shares: envelopes, relationships, pagination links,
// included resources. Serializers build plain objects with these helpers. Nothing here knows HTTP,
// so routes and webhook payload rendering use the same serializers.

export type Identifier = { type: string; id: string };
/** A relationship: its linkage, a link to the related list, or both (JSON:API allows either). */
export type Relationship = { data?: Identifier | Identifier[] | null; links?: Record<string, string> };

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

export { iso } from '../util/iso.ts';

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
  const lastPage = lastPageNumber(page, total);
  // The other parameters are encoded once (a hot list builds up to six links).
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && k !== 'page[number]' && k !== 'page[size]') params.set(k, v);
  }
  const rest = params.toString();
  const head = `${baseUrl}${API_PREFIX}${path}?${rest ? `${rest}&` : ''}page%5Bnumber%5D=`;
  const url = (n: number) => `${head}${n}&page%5Bsize%5D=${page.size}`;
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

/** Builds the `included` resources of some rows of one account for the include paths asked. */
export type IncludeBuilder<R> = (
  db: Kysely<DB>,
  accountId: string,
  rows: R[],
  include: Set<string>,
) => Promise<Resource[]>;

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
  addAll(resources: Iterable<Resource | null | undefined>): void {
    for (const r of resources) this.add(r);
  }
}
