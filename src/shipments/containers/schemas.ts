import { Type } from 'typebox';
import { parsePage } from '../../http/jsonapi.ts';
import { PageQuery, query, UpdatedAtQuery } from '../../http/schemas.ts';
import type { Page } from '../../util/page.ts';
import { SORTS } from './service.ts';

// Request schemas and parameter parsing of the container and transport event endpoints (TypeBox;
// they validate requests and become the published OpenAPI document).

type Query = Record<string, string | undefined>;

export const CONTAINER_INCLUDES = [
  'shipment',
  'pod_terminal',
  'pickup_facility',
  'transport_events',
] as const;
export const EVENT_INCLUDES = ['shipment', 'container', 'location', 'terminal', 'vessel'] as const;
/** Event lists: one page holds a whole journey by default. */
const EVENT_PAGE_SIZE = '100';

/** Event lists are paged by 100 unless page[size] says otherwise. */
export function eventPage(qs: Query): Page {
  return parsePage({ ...qs, 'page[size]': qs['page[size]'] ?? EVENT_PAGE_SIZE });
}

export const IncludeDescription = (paths: readonly string[]) =>
  Type.Optional(Type.String({ description: `Comma-separated: ${paths.join(', ')}.` }));

export const ListQuery = query({
  ...PageQuery,
  ...UpdatedAtQuery,
  'filter[shipment_id]': Type.Optional(Type.String({ description: 'Only the containers of this shipment.' })),
  'filter[number]': Type.Optional(
    Type.String({ maxLength: 20, description: 'Container number (ISO 6346).' }),
  ),
  number: Type.Optional(Type.String({ maxLength: 20, description: 'Same as filter[number].' })),
  include: IncludeDescription(CONTAINER_INCLUDES),
  sort: Type.Optional(Type.String({ description: `One of ${SORTS.join(', ')} (default -created_at).` })),
});

export const EventPageQuery = {
  'page[number]': PageQuery['page[number]'],
  'page[size]': Type.Optional(
    Type.String({ pattern: '^[0-9]+$', description: 'Page size, 1..100 (default 100).' }),
  ),
};

export const EventListQuery = query({ ...EventPageQuery, include: IncludeDescription(EVENT_INCLUDES) });
