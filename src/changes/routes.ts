import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { parseDateParam } from '../http/jsonapi.ts';
import { listRequest, listResponse } from '../http/list.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { list } from '../jsonapi/schemas.ts';
import { schemaOf } from '../members/kit.ts';
import { CHANGE } from './members.ts';
import { listChanges } from './service.ts';

// HTTP <-> service for the change history: GET /shipments/:id/changes and /containers/:id/changes.

const ChangeSchema = schemaOf(CHANGE);

const ChangesQuery = query({
  ...PageQuery,
  'filter[attribute]': Type.Optional(
    Type.String({ description: 'Only changes of these attributes (comma-separated), e.g. pod_eta_at.' }),
  ),
  'filter[observed_at][start]': Type.Optional(
    Type.String({ description: 'Only changes observed at or after (ISO 8601).' }),
  ),
  'filter[observed_at][end]': Type.Optional(
    Type.String({ description: 'Only changes observed at or before (ISO 8601).' }),
  ),
});

export function changeRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  return async (app) => {
    for (const kind of ['shipment', 'container'] as const) {
      app.get(
        `/${kind}s/:id/changes`,
        {
          schema: {
            tags: [kind === 'shipment' ? 'Shipments' : 'Containers'],
            summary: `The change history of a ${kind}`,
            description:
              (kind === 'shipment'
                ? "Changes of the shipment's and its containers' tracked facts"
                : "Changes of the container's tracked facts") +
              ' (estimates and actuals, vessel and voyage, terminals, status, availability, holds, fees, last free days, appointment), one per attribute, newest first, with the value before and after, when it was observed and its source. An extension: the reference keeps no history.',
            params: IdParams,
            querystring: ChangesQuery,
            response: { 200: list(ChangeSchema), ...errorResponses(400, 401, 404, 429) },
          },
        },
        async (request) => {
          const { qs, page } = listRequest(request.query);
          const { data, total } = await listChanges(
            db,
            request.accountId,
            { kind, id: request.params.id },
            {
              attribute: qs['filter[attribute]'],
              start: parseDateParam(qs, 'filter[observed_at][start]'),
              end: parseDateParam(qs, 'filter[observed_at][end]'),
              page,
            },
          );
          return listResponse(ctx.baseUrl, `/${kind}s/${request.params.id}/changes`, { qs, page }, total, {
            data,
          });
        },
      );
    }
  };
}
