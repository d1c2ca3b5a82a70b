import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app-context.ts';
import { customFieldConditions } from '../custom-fields/filter.ts';
import { sendCsv, wantsCsv } from '../http/csv.ts';
import { sendJsonText } from '../http/json-text.ts';
import { parseDateParam, parseInclude } from '../http/jsonapi.ts';
import { listRequest, listResponse, listRoute } from '../http/list.ts';
import { errorResponses, IdParams, query } from '../http/schemas.ts';
import { flatColumns } from '../jsonapi/flat.ts';
import { single } from '../jsonapi/schemas.ts';
import { customerConditions } from '../parties/filter.ts';
import { INCLUDES, IncludeQuery, ListQuery, PatchBody } from './schemas.ts';
import { ShipmentSchema } from './serializer.ts';
import {
  editShipment,
  getShipment,
  listShipmentsOf,
  resumeTracking,
  shipmentNotFound,
  shipmentSort,
  stopTracking,
} from './service.ts';
import {
  SQL_INCLUDES,
  shipmentPageText,
  shipmentText,
  sqlCovers,
  unfilteredList,
} from './sql-bodies/service.ts';

// HTTP <-> service translation for /shipments: parse parameters, call service.ts, send the document.
// Containers are part of this read model (./containers/): shipments include their containers and
// containers include their shipment, so both live under one top-level part with no cycle between parts.

type Query = Record<string, string | undefined>;

const SHIPMENT_COLUMNS = flatColumns(ShipmentSchema);

export function shipmentRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const sqlBodies = ctx.sqlBodies !== false;

  return async (app) => {
    app.get(
      '/shipments',
      listRoute({
        tags: ['Shipments'],
        summary: 'List shipments',
        description:
          'Newest first by default. Search with q or number; filter by tracking state or update time.',
        querystring: ListQuery,
        item: ShipmentSchema,
      }),
      async (request, reply) => {
        const { qs, page, include } = listRequest(request.query, INCLUDES);
        const sort = shipmentSort(qs.sort);
        const input = {
          q: qs.q,
          number: qs.number,
          trackingStopped: qs['filter[tracking_stopped]'] as 'true' | 'false' | undefined,
          updated_start: parseDateParam(qs, 'filter[updated_at][start]'),
          updated_end: parseDateParam(qs, 'filter[updated_at][end]'),
          where: [...customerConditions(qs), ...customFieldConditions(qs, 's')],
          sort,
        };
        if (wantsCsv(request)) {
          return sendCsv(reply, 'shipments', SHIPMENT_COLUMNS, async (p) => {
            return (await listShipmentsOf(db, request.accountId, input, p, new Set())).data;
          });
        }
        if (sqlBodies && unfilteredList(qs) && sqlCovers(SQL_INCLUDES.shipments, include)) {
          const text = await shipmentPageText(ctx.database, request.accountId, sort, page, include, {
            baseUrl: ctx.baseUrl,
            qs,
          });
          return sendJsonText(reply, text);
        }
        const { total, ...doc } = await listShipmentsOf(db, request.accountId, input, page, include);
        return listResponse(ctx.baseUrl, '/shipments', { qs, page }, total, doc);
      },
    );

    app.get(
      '/shipments/:id',
      {
        schema: {
          tags: ['Shipments'],
          summary: 'Get a shipment',
          params: IdParams,
          querystring: query({ include: IncludeQuery }),
          response: { 200: single(ShipmentSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request, reply) => {
        const include = parseInclude((request.query as Query).include, INCLUDES);
        if (sqlBodies && sqlCovers(SQL_INCLUDES.shipment, include)) {
          const text = await shipmentText(ctx.database, request.accountId, request.params.id, include);
          if (text === undefined) throw shipmentNotFound();
          return sendJsonText(reply, text);
        }
        return getShipment(db, request.accountId, request.params.id, include);
      },
    );

    app.patch(
      '/shipments/:id',
      {
        schema: {
          tags: ['Shipments'],
          summary: 'Edit a shipment (ref_numbers, tags)',
          description: 'Replaces the lists given. Tags must be unique. Does not re-track.',
          params: IdParams,
          body: PatchBody,
          response: { 200: single(ShipmentSchema), ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request) => editShipment(db, request.accountId, request.params.id, request.body.data.attributes),
    );

    // Stopping and resuming are the same kind of action: same parameters, answer and errors.
    const trackingActions = [
      {
        path: '/shipments/:id/stop_tracking',
        summary: 'Stop tracking a shipment',
        description:
          "No more updates from the line. Its tracking requests become tracking_stopped (one tracking_request.tracking_stopped event each). Idempotent: a second stop keeps the first stop's time and reason.",
        act: stopTracking,
      },
      {
        path: '/shipments/:id/resume_tracking',
        summary: 'Resume tracking a shipment',
        description:
          'Clears the stop, makes the shipment due for a refresh now, and moves its stopped tracking requests back to created. A shipment that is not stopped is left as it is.',
        act: resumeTracking,
      },
    ];
    for (const { path, summary, description, act } of trackingActions) {
      app.patch(
        path,
        {
          schema: {
            tags: ['Shipments'],
            summary,
            description,
            params: IdParams,
            querystring: query({}),
            response: { 200: single(ShipmentSchema), ...errorResponses(400, 401, 404, 429) },
          },
        },
        async (request) => act(db, request.accountId, request.params.id, ctx.notifyWork),
      );
    }
  };
}
