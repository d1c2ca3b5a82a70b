import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { sendCsv, wantsCsv } from '../http/csv.ts';
import { sendJsonText } from '../http/json-text.ts';
import { parseDateParam, parseInclude } from '../http/jsonapi.ts';
import { listRequest, listResponse, listRoute } from '../http/list.ts';
import { errorResponses, IdParams } from '../http/schemas.ts';
import { flatColumns } from '../jsonapi/flat.ts';
import { single } from '../jsonapi/schemas.ts';
import { unfilteredList } from '../shipments/sql-bodies/service.ts';
import { uuidV5 } from '../util/uuid.ts';
import { batchedTrackingRequestInsert } from './queries.ts';
import {
  CreateBody,
  INCLUDES,
  IncludeQuery,
  InferBody,
  InferenceSchema,
  ListQuery,
  PatchBody,
} from './schemas.ts';
import { serializeTrackingRequest, TrackingRequestSchema } from './serializer.ts';
import {
  createTrackingRequest,
  editTrackingRequest,
  getTrackingRequest,
  inferTrackingNumber,
  listTrackingRequestsOf,
  trackingRequestSort,
} from './service.ts';
import { trackingRequestPageText } from './sql-body.ts';

// HTTP <-> service translation for /tracking_requests: parse parameters, call service.ts, serialize.

const TRACKING_REQUEST_COLUMNS = flatColumns(TrackingRequestSchema);

export function trackingRequestRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const { database } = ctx;
  const db = database.db;
  const insertTrackingRequest = batchedTrackingRequestInsert(db);
  return async (app) => {
    app.post(
      '/tracking_requests',
      {
        config: { bucket: 'create' },
        schema: {
          tags: ['Tracking Requests'],
          summary: 'Create a tracking request',
          body: CreateBody,
          response: { 201: single(TrackingRequestSchema), ...errorResponses(400, 401, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => {
        const tr = await createTrackingRequest(
          db,
          insertTrackingRequest,
          request.accountId,
          request.body.data.attributes,
          request.body.data.relationships,
        );
        ctx.notifyWork?.('tracking_request');
        return reply.code(201).send({ data: serializeTrackingRequest(tr) });
      },
    );

    app.get(
      '/tracking_requests',
      listRoute({
        tags: ['Tracking Requests'],
        summary: 'List tracking requests',
        querystring: ListQuery,
        item: TrackingRequestSchema,
      }),
      async (request, reply) => {
        const { qs, page, include } = listRequest(request.query, INCLUDES);
        const sort = trackingRequestSort(qs.sort);
        const input = {
          status: qs['filter[status]'],
          scac: qs['filter[scac]'],
          request_number: qs['filter[request_number]'],
          q: qs.q,
          created_start: parseDateParam(qs, 'filter[created_at][start]'),
          created_end: parseDateParam(qs, 'filter[created_at][end]'),
          updated_start: parseDateParam(qs, 'filter[updated_at][start]'),
          updated_end: parseDateParam(qs, 'filter[updated_at][end]'),
          sort,
        };
        if (wantsCsv(request)) {
          return sendCsv(reply, 'tracking_requests', TRACKING_REQUEST_COLUMNS, async (p) => {
            const { rows } = await listTrackingRequestsOf(
              db,
              request.accountId,
              { ...input, includeTrackedObject: false },
              p,
            );
            return rows.map(serializeTrackingRequest);
          });
        }
        // Every include of the list (tracked_object and its alias shipment) is the shipments.
        if (ctx.sqlBodies !== false && unfilteredList(qs)) {
          const text = await trackingRequestPageText(
            ctx.database,
            request.accountId,
            sort,
            page,
            include.size > 0,
            { baseUrl: ctx.baseUrl, qs },
          );
          return sendJsonText(reply, text);
        }
        const { rows, total, included } = await listTrackingRequestsOf(
          db,
          request.accountId,
          { ...input, includeTrackedObject: include.has('tracked_object') || include.has('shipment') },
          page,
        );
        return listResponse(ctx.baseUrl, '/tracking_requests', { qs, page }, total, {
          data: rows.map(serializeTrackingRequest),
          included: include.size ? included : undefined,
        });
      },
    );

    app.get(
      '/tracking_requests/:id',
      {
        schema: {
          tags: ['Tracking Requests'],
          summary: 'Get a tracking request',
          params: IdParams,
          querystring: IncludeQuery,
          response: { 200: single(TrackingRequestSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        // tracked_object is included by default, as in the reference service.
        const include = parseInclude((request.query as { include?: string }).include, INCLUDES, [
          'tracked_object',
        ]);
        const { row, included } = await getTrackingRequest(
          db,
          request.accountId,
          request.params.id,
          include.has('tracked_object') || include.has('shipment'),
        );
        return { data: serializeTrackingRequest(row), ...(include.size ? { included } : {}) };
      },
    );

    app.patch(
      '/tracking_requests/:id',
      {
        schema: {
          tags: ['Tracking Requests'],
          summary: 'Edit a tracking request (ref_numbers, tags)',
          params: IdParams,
          body: PatchBody,
          response: {
            200: single(TrackingRequestSchema),
            ...errorResponses(400, 401, 404, 413, 415, 422, 429),
          },
        },
      },
      async (request) => {
        const tr = await editTrackingRequest(
          db,
          request.accountId,
          request.params.id,
          request.body.data.attributes,
        );
        return { data: serializeTrackingRequest(tr) };
      },
    );
  };
}

/** POST /tracking_requests/infer_number: registered on its own, after the webhook routes (path order). */
export const inferRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tracking_requests/infer_number',
    {
      config: { bucket: 'infer' },
      schema: {
        tags: ['Tracking Requests'],
        summary: 'Infer the number type and shipping line of a tracking number',
        description:
          "Container numbers are checked against ISO 6346 (check digit) and their owner prefix; bill of lading numbers against the lines' BL prefixes and SCACs. `request_type` is the value to use when creating the tracking request.",
        body: InferBody,
        response: {
          200: Type.Object({ data: InferenceSchema }),
          ...errorResponses(400, 401, 413, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const jsonApi = body.number === undefined && body.data !== undefined;
      const inference = inferTrackingNumber(
        body.number ?? body.data?.attributes.number,
        jsonApi ? '/data/attributes/number' : '/number',
      );
      return {
        data: {
          id: uuidV5(`infer_number:${inference.number}`),
          type: 'infer_number_result' as const,
          attributes: inference,
        },
      };
    },
  );
};
