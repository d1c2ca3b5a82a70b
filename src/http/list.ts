import type { TSchema } from 'typebox';
import { type ListLinks, pageLinks } from '../jsonapi/resource.ts';
import { list } from '../jsonapi/schemas.ts';
import type { Page } from '../util/page.ts';
import { parseInclude, parsePage } from './jsonapi.ts';
import { errorResponses } from './schemas.ts';

// The two ends every paged list route shares: reading page and include from the query string, and
// wrapping one page of resources in the list body (pagination links keep the other parameters).

export type Query = Record<string, string | undefined>;

export interface ListRequest {
  qs: Query;
  page: Page;
  /** Empty when the route names no include paths. */
  include: Set<string>;
}

/** Page and include of a list request; a bad value is a 400 naming the parameter (page first). */
export function listRequest(query: unknown, includes?: readonly string[], defaults?: string[]): ListRequest {
  const qs = query as Query;
  const page = parsePage(qs);
  return { qs, page, include: includes ? parseInclude(qs.include, includes, defaults) : new Set() };
}

/** The list body of one page: `data`, `included` when given, then links and meta. */
export function listResponse<D, I>(
  baseUrl: string,
  path: string,
  { qs, page }: Pick<ListRequest, 'qs' | 'page'>,
  total: number,
  body: { data: D[]; included?: I[] },
): { data: D[]; included?: I[]; links: ListLinks; meta: { size: number; total: number } } {
  return {
    data: body.data,
    ...(body.included === undefined ? {} : { included: body.included }),
    links: pageLinks(baseUrl, path, qs, page, total),
    meta: { size: page.size, total },
  };
}

/**
 * Route options of a paged list: its OpenAPI text, its query string, and as answers the list
 * body of `item` resources or the errors any list can give.
 */
export function listRoute<Q extends TSchema, I extends TSchema>(o: {
  tags: string[];
  summary: string;
  description?: string;
  querystring: Q;
  item: I;
}) {
  return {
    schema: {
      tags: o.tags,
      summary: o.summary,
      ...(o.description === undefined ? {} : { description: o.description }),
      querystring: o.querystring,
      response: { 200: list(o.item), ...errorResponses(400, 401, 429) },
    },
  };
}
