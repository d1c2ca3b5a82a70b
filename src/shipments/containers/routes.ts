import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { customFieldConditions } from '../../custom-fields/filter.ts';
import { sendCsv, wantsCsv } from '../../http/csv.ts';
import { sendJsonText } from '../../http/json-text.ts';
import { parseDateParam, parseInclude } from '../../http/jsonapi.ts';
import { listRequest, listResponse, listRoute } from '../../http/list.ts';
import { errorResponses, IdParams, query } from '../../http/schemas.ts';
import { flatColumns } from '../../jsonapi/flat.ts';
import { pageLinks } from '../../jsonapi/resource.ts';
import { list, single } from '../../jsonapi/schemas.ts';
import {
  containerEventsText,
  containerPageText,
  containerText,
  SQL_INCLUDES,
  sqlCovers,
  unfilteredList,
} from '../sql-bodies/service.ts';
import {
  CONTAINER_INCLUDES,
  EVENT_INCLUDES,
  EventListQuery,
  EventPageQuery,
  eventPage,
  IncludeDescription,
  ListQuery,
} from './schemas.ts';
import { ContainerSchema, RawEventSchema, TransportEventSchema } from './serializer.ts';
import {
  containerListFilter,
  containerNotFound,
  containerRawEvents,
  containerSort,
  containerTransportEvents,
  getContainer,
  getTransportEvent,
  listContainersOf,
  refreshContainer,
  resumeContainer,
  stopContainer,
} from './service.ts';

// HTTP <-> service translation for /containers and /transport_events: parse parameters, call
// service.ts, add links, send.

type Query = Record<string, string | undefined>;

const CONTAINER_COLUMNS = flatColumns(ContainerSchema);

export function containerRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const sqlBodies = ctx.sqlBodies !== false;

  return async (app) => {
    app.get(
      '/containers',
      listRoute({
        tags: ['Containers'],
        summary: 'List containers',
        description:
          'Newest first by default. Filter by shipment, number or update time; sort by created_at or updated_at.',
        querystring: ListQuery,
        item: ContainerSchema,
      }),
      async (request, reply) => {
        const { qs, page, include } = listRequest(request.query, CONTAINER_INCLUDES);
        const sort = containerSort(qs.sort);
        const input = {
          ...containerListFilter(qs['filter[shipment_id]'], qs['filter[number]'] ?? qs.number),
          updated_start: parseDateParam(qs, 'filter[updated_at][start]'),
          updated_end: parseDateParam(qs, 'filter[updated_at][end]'),
          sort,
          where: customFieldConditions(qs, 'c'),
        };
        if (wantsCsv(request)) {
          return sendCsv(reply, 'containers', CONTAINER_COLUMNS, async (p) => {
            return (await listContainersOf(db, request.accountId, input, p, new Set())).data;
          });
        }
        if (sqlBodies && unfilteredList(qs) && sqlCovers(SQL_INCLUDES.containers, include)) {
          const text = await containerPageText(ctx.database, request.accountId, sort, page, {
            baseUrl: ctx.baseUrl,
            qs,
          });
          return sendJsonText(reply, text);
        }
        const { data, included, total } = await listContainersOf(db, request.accountId, input, page, include);
        return listResponse(ctx.baseUrl, '/containers', { qs, page }, total, {
          data,
          included: include.size ? included : undefined,
        });
      },
    );

    app.get(
      '/containers/:id',
      {
        schema: {
          tags: ['Containers'],
          summary: 'Get a container',
          params: IdParams,
          querystring: query({ include: IncludeDescription(CONTAINER_INCLUDES) }),
          response: { 200: single(ContainerSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request, reply) => {
        const include = parseInclude((request.query as Query).include, CONTAINER_INCLUDES);
        if (sqlBodies && sqlCovers(SQL_INCLUDES.container, include)) {
          const text = await containerText(ctx.database, request.accountId, request.params.id);
          if (text === undefined) throw containerNotFound();
          return sendJsonText(reply, text);
        }
        const doc = await getContainer(db, request.accountId, request.params.id, include);
        return { data: doc.data, ...(include.size ? { included: doc.included } : {}) };
      },
    );

    app.get(
      '/containers/:id/transport_events',
      {
        schema: {
          tags: ['Containers'],
          summary: "A container's transport events",
          description:
            'The full normalized history of the container, ordered by timestamp (events without one last), then by a stable key. 100 per page by default.',
          params: IdParams,
          querystring: EventListQuery,
          response: { 200: list(TransportEventSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request, reply) => {
        const qs = request.query as Query;
        const page = eventPage(qs);
        const include = parseInclude(qs.include, EVENT_INCLUDES);
        if (sqlBodies && sqlCovers(SQL_INCLUDES.containerEvents, include)) {
          const text = await containerEventsText(
            ctx.database,
            request.accountId,
            request.params.id,
            page,
            include,
            {
              baseUrl: ctx.baseUrl,
              qs,
              url: request.url,
            },
          );
          if (text === undefined) throw containerNotFound();
          return sendJsonText(reply, text);
        }
        const { containerId, total, ...doc } = await containerTransportEvents(
          db,
          request.accountId,
          request.params.id,
          page,
          include,
        );
        const links = pageLinks(ctx.baseUrl, `/containers/${containerId}/transport_events`, qs, page, total);
        return {
          ...doc,
          // self: this URL as asked; current: the same list from its first page (interface spec 4.2).
          links: { ...links, self: `${ctx.baseUrl}${request.url}`, current: links.first },
          meta: { size: page.size, total },
        };
      },
    );

    app.get(
      '/containers/:id/raw_events',
      {
        schema: {
          tags: ['Containers'],
          summary: "A container's raw carrier events",
          description:
            "The carrier's events as received (payload included): those naming this container and those naming no container (vessel movements, documents), by event time. 100 per page by default.",
          params: IdParams,
          querystring: query(EventPageQuery),
          response: { 200: list(RawEventSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Query;
        const page = eventPage(qs);
        const { containerId, data, total } = await containerRawEvents(
          db,
          request.accountId,
          request.params.id,
          page,
        );
        return {
          data,
          links: pageLinks(ctx.baseUrl, `/containers/${containerId}/raw_events`, qs, page, total),
          meta: { size: page.size, total },
        };
      },
    );

    app.patch(
      '/containers/:id/refresh',
      {
        config: { bucket: 'refresh' },
        schema: {
          tags: ['Containers'],
          summary: 'Refresh a container now',
          description:
            "Makes the container's shipment due for a refresh from the carrier at once; the result arrives as updates and webhooks. 200 with the reference's `message` (its clients expect 200), plus the container.",
          params: IdParams,
          querystring: query({}),
          response: {
            200: Type.Object({
              message: Type.String({ description: 'What was scheduled, as the reference words it.' }),
              data: ContainerSchema,
              meta: Type.Object({ refresh_queued: Type.Boolean() }),
            }),
            ...errorResponses(400, 401, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const data = await refreshContainer(db, request.accountId, request.params.id, ctx.notifyWork);
        // 200, not 202: the reference document answers 200 (docs/api-notes.md). Only the line is a source.
        return { message: 'Started refresh for Shipping line', data, meta: { refresh_queued: true } };
      },
    );

    // Beyond the reference (docs/api-notes.md): stopping and resuming one container, the same
    // kind of action as the shipment's (shipments/routes.ts): same parameters, answer and errors.
    const trackingActions = [
      {
        path: '/containers/:id/stop_tracking',
        summary: 'Stop tracking a container',
        description:
          "Extension: no more carrier or terminal updates for this container alone; its stored facts stay as they are. Sets tracking_stopped_at and tracking_stopped_reason (user_request) and sends container.updated. When it was the last of its shipment's containers still tracked, the shipment stops too (line_tracking_stopped_reason all_containers_stopped, tracking_request.tracking_stopped). Idempotent: a second stop keeps the first stop's time and reason.",
        act: stopContainer,
      },
      {
        path: '/containers/:id/resume_tracking',
        summary: 'Resume tracking a container',
        description:
          'Extension: clears the stop (container.updated), makes its shipment due for a refresh now, and resumes the shipment when it had stopped because all its containers had. A container that is not stopped is left as it is.',
        act: resumeContainer,
      },
    ];
    for (const { path, summary, description, act } of trackingActions) {
      app.patch(
        path,
        {
          schema: {
            tags: ['Containers'],
            summary,
            description,
            params: IdParams,
            querystring: query({}),
            response: { 200: single(ContainerSchema), ...errorResponses(400, 401, 404, 429) },
          },
        },
        async (request) => ({
          data: await act(db, request.accountId, request.params.id, ctx.notifyWork),
        }),
      );
    }

    app.get(
      '/transport_events/:id',
      {
        schema: {
          tags: ['Containers'],
          summary: 'Get a transport event',
          description: 'Where the links.self of a transport event points (webhook payloads reference them).',
          params: IdParams,
          querystring: query({ include: IncludeDescription(EVENT_INCLUDES) }),
          response: { 200: single(TransportEventSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const include = parseInclude((request.query as Query).include, EVENT_INCLUDES);
        return getTransportEvent(db, request.accountId, request.params.id, include);
      },
    );
  };
}
