import { Type } from 'typebox';
import { routeModule } from '../http/route-module.ts';
import { errorResponses, query } from '../http/schemas.ts';
import { SearchLinksSchema, SearchResultSchema, searchLinks, serializeHit } from './serializer.ts';
import { MAX_QUERY_LENGTH, search } from './service.ts';

export const searchRoutes = routeModule((app, db, ctx) => {
  app.get(
    '/search',
    {
      schema: {
        tags: ['Search'],
        summary: 'Search shipments, containers and tracking requests',
        description:
          'Case-insensitive, partial matching of bill of lading, booking and container numbers, reference numbers, tags and custom field values. Exact number matches first, then shipments, containers and tracking requests without a shipment; at most 25 results. Each result is a `search_result` whose `entity_type` is `shipment`, `cargo` (a container) or `tracking_request`, as the live reference service answers.',
        // Not `required` in the schema: a missing query gets the same precise 400 as a blank one.
        querystring: query({
          query: Type.Optional(Type.String({ description: `At most ${MAX_QUERY_LENGTH} characters.` })),
        }),
        response: {
          200: Type.Object({ data: Type.Array(SearchResultSchema), links: SearchLinksSchema }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const raw = (request.query as { query?: string }).query;
      const hits = await search(db, request.accountId, raw);
      return { data: hits.map(serializeHit), links: searchLinks(ctx.baseUrl, raw!.trim()) };
    },
  );
});
