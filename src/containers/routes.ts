import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { customFieldConditions } from '../custom-fields/filter.ts';
import type { DB } from '../db/schema.ts';
import { ApiError, badParameter, notFound } from '../http/errors.ts';
import {
  Included,
  type Page,
  pageLinks,
  parseDateParam,
  parseInclude,
  parsePage,
  type Resource,
} from '../http/jsonapi.ts';
import { errorResponses, IdParams, list, PageQuery, query, single, UpdatedAtQuery } from '../http/schemas.ts';
import { portResources, serializeVessel, terminalResources } from '../reference/serializers.ts';
import { shipmentIncludes } from '../shipments/include.ts';
import { isUuid } from '../util/uuid.ts';
import {
  type ContainerRow,
  containersByIds,
  eventSummaries,
  findContainer,
  findTransportEvent,
  listContainers,
  listRawEvents,
  listTransportEvents,
  requestRefresh,
  summarize,
  type TransportEventRow,
  transportEventsOfContainers,
  vesselsByIds,
  vesselsByImoOrName,
} from './queries.ts';
import {
  ContainerSchema,
  RawEventSchema,
  serializeContainer,
  serializeRawEvent,
  serializeTransportEvent,
  TransportEventSchema,
} from './serializer.ts';

const CONTAINER_INCLUDES = ['shipment', 'pod_terminal', 'pickup_facility', 'transport_events'] as const;
const EVENT_INCLUDES = ['shipment', 'container', 'location', 'terminal', 'vessel'] as const;
const SORTS = ['created_at', '-created_at', 'updated_at', '-updated_at'];
/** Event lists: one page holds a whole journey by default. */
const EVENT_PAGE_SIZE = '100';

type Query = Record<string, string | undefined>;

/** Container resources for loaded rows: one query for all their transport event ids. */
export async function containerResources(
  db: Kysely<DB>,
  accountId: string,
  rows: ContainerRow[],
): Promise<Resource[]> {
  const events = await eventSummaries(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => serializeContainer(r, events.get(r.id)));
}

/** Containers and their includes, with at most one query per include path. */
async function containersDocument(
  db: Kysely<DB>,
  accountId: string,
  rows: ContainerRow[],
  include: Set<string>,
): Promise<{ data: Resource[]; included: Resource[] }> {
  const included = new Included();
  let events: TransportEventRow[] = [];
  let data: Resource[];
  if (include.has('transport_events')) {
    events = await transportEventsOfContainers(
      db,
      accountId,
      rows.map((r) => r.id),
    );
    const summaries = summarize(events);
    data = rows.map((r) => serializeContainer(r, summaries.get(r.id)));
  } else {
    data = await containerResources(db, accountId, rows);
  }
  if (include.has('shipment')) {
    for (const r of await shipmentIncludes(
      db,
      accountId,
      rows.map((r) => r.shipment_id),
    ))
      included.add(r);
  }
  if (include.has('pod_terminal')) {
    for (const r of terminalResources(rows.map((r) => r.pod_terminal_id ?? r.shipment_pod_terminal_id)))
      included.add(r);
  }
  for (const e of events) included.add(serializeTransportEvent(e));
  return { data, included: included.items };
}

/** Resources related to transport events, for `include`. */
async function eventIncludes(
  db: Kysely<DB>,
  accountId: string,
  events: TransportEventRow[],
  include: Set<string>,
): Promise<Resource[]> {
  const included = new Included();
  if (include.has('shipment')) {
    for (const r of await shipmentIncludes(
      db,
      accountId,
      events.map((e) => e.shipment_id),
    ))
      included.add(r);
  }
  if (include.has('container')) {
    const rows = await containersByIds(
      db,
      accountId,
      events.map((e) => e.container_id),
    );
    for (const r of await containerResources(db, accountId, rows)) included.add(r);
  }
  if (include.has('location'))
    for (const r of portResources(events.map((e) => e.location_locode))) included.add(r);
  if (include.has('terminal'))
    for (const r of terminalResources(events.map((e) => e.terminal_id))) included.add(r);
  if (include.has('vessel')) {
    for (const v of await vesselsByIds(
      db,
      events.map((e) => e.vessel_id),
    ))
      included.add(serializeVessel(v));
  }
  return included.items;
}

function sortOf(qs: Query): { column: 'created_at' | 'updated_at'; desc: boolean } {
  const sort = qs.sort ?? '-created_at';
  if (!SORTS.includes(sort)) throw badParameter('sort', `sort must be one of ${SORTS.join(', ')}.`);
  return { column: sort.replace('-', '') as 'created_at' | 'updated_at', desc: sort.startsWith('-') };
}

function eventPage(qs: Query): Page {
  return parsePage({ ...qs, 'page[size]': qs['page[size]'] ?? EVENT_PAGE_SIZE });
}

const IncludeDescription = (paths: readonly string[]) =>
  Type.Optional(Type.String({ description: `Comma-separated: ${paths.join(', ')}.` }));

const ListQuery = query({
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

const EventPageQuery = {
  'page[number]': PageQuery['page[number]'],
  'page[size]': Type.Optional(
    Type.String({ pattern: '^[0-9]+$', description: 'Page size, 1..100 (default 100).' }),
  ),
};

const EventListQuery = query({ ...EventPageQuery, include: IncludeDescription(EVENT_INCLUDES) });

export function containerRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;

  async function containerOr404(accountId: string, id: string): Promise<ContainerRow> {
    const c = isUuid(id) ? await findContainer(db, accountId, id) : undefined;
    if (!c) throw notFound('No container with this id.');
    return c;
  }

  return async (app) => {
    app.get(
      '/containers',
      {
        schema: {
          tags: ['Containers'],
          summary: 'List containers',
          description:
            'Newest first by default. Filter by shipment, number or update time; sort by created_at or updated_at.',
          querystring: ListQuery,
          response: { 200: list(ContainerSchema), ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Query;
        const page = parsePage(qs);
        const include = parseInclude(qs.include, CONTAINER_INCLUDES);
        const sort = sortOf(qs);
        const shipmentId = qs['filter[shipment_id]'];
        if (shipmentId !== undefined && !isUuid(shipmentId)) {
          throw badParameter('filter[shipment_id]', `filter[shipment_id] must be a shipment id (UUID).`);
        }
        const number = (qs['filter[number]'] ?? qs.number)?.replace(/\s+/g, '').toUpperCase();
        const { rows, total } = await listContainers(
          db,
          request.accountId,
          {
            shipment_id: shipmentId,
            number: number || undefined,
            updated_start: parseDateParam(qs, 'filter[updated_at][start]'),
            updated_end: parseDateParam(qs, 'filter[updated_at][end]'),
            sort,
            where: customFieldConditions(qs, 'c'),
          },
          page,
        );
        const doc = await containersDocument(db, request.accountId, rows, include);
        return {
          data: doc.data,
          ...(include.size ? { included: doc.included } : {}),
          links: pageLinks(ctx.baseUrl, '/containers', qs, page, total),
          meta: { size: page.size, total },
        };
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
      async (request) => {
        const include = parseInclude((request.query as Query).include, CONTAINER_INCLUDES);
        const c = await containerOr404(request.accountId, request.params.id);
        const doc = await containersDocument(db, request.accountId, [c], include);
        return { data: doc.data[0], ...(include.size ? { included: doc.included } : {}) };
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
      async (request) => {
        const qs = request.query as Query;
        const page = eventPage(qs);
        const include = parseInclude(qs.include, EVENT_INCLUDES);
        const c = await containerOr404(request.accountId, request.params.id);
        const { rows, total } = await listTransportEvents(db, request.accountId, c.id, page);
        const links = pageLinks(ctx.baseUrl, `/containers/${c.id}/transport_events`, qs, page, total);
        return {
          data: rows.map(serializeTransportEvent),
          ...(include.size ? { included: await eventIncludes(db, request.accountId, rows, include) } : {}),
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
        const c = await containerOr404(request.accountId, request.params.id);
        const [{ rows, total }, events] = await Promise.all([
          listRawEvents(db, request.accountId, c.shipment_id, c.number, page),
          transportEventsOfContainers(db, request.accountId, [c.id]),
        ]);
        const vessels = await vesselsByImoOrName(
          db,
          rows.flatMap((r) => (r.vessel_imo ? [r.vessel_imo] : [])),
          rows.flatMap((r) => (!r.vessel_imo && r.vessel_name ? [r.vessel_name] : [])),
        );
        const byImo = new Map(vessels.filter((v) => v.imo).map((v) => [v.imo!, v.id]));
        const byName = new Map(vessels.filter((v) => v.name_key).map((v) => [v.name_key!, v.id]));
        const offset = (page.number - 1) * page.size;
        return {
          data: rows.map((r, i) =>
            serializeRawEvent(r, i, {
              offset,
              transportEvents: events,
              vesselIdOf: (imo, name) =>
                (imo ? byImo.get(imo) : name ? byName.get(name.toUpperCase()) : undefined) ?? null,
            }),
          ),
          links: pageLinks(ctx.baseUrl, `/containers/${c.id}/raw_events`, qs, page, total),
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
            "Makes the container's shipment due for a refresh from the carrier at once. 202: queued; the result arrives as updates and webhooks.",
          params: IdParams,
          querystring: query({}),
          response: {
            202: Type.Object({
              data: ContainerSchema,
              meta: Type.Object({ refresh_queued: Type.Boolean() }),
            }),
            ...errorResponses(400, 401, 404, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const c = await containerOr404(request.accountId, request.params.id);
        const outcome = await requestRefresh(db, request.accountId, c.shipment_id);
        if (outcome === 'stopped') {
          throw new ApiError(422, [
            {
              detail: `Tracking of this container's shipment has stopped, so it cannot be refreshed. Resume it first with PATCH /v2/shipments/${c.shipment_id}/resume_tracking.`,
              code: 'tracking_stopped',
            },
          ]);
        }
        ctx.notifyWork?.('refresh');
        const [data] = await containerResources(db, request.accountId, [c]);
        return reply.code(202).send({ data: data!, meta: { refresh_queued: true } });
      },
    );

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
        const e = isUuid(request.params.id)
          ? await findTransportEvent(db, request.accountId, request.params.id)
          : undefined;
        if (!e) throw notFound('No transport event with this id.');
        return {
          data: serializeTransportEvent(e),
          ...(include.size ? { included: await eventIncludes(db, request.accountId, [e], include) } : {}),
        };
      },
    );
  };
}
