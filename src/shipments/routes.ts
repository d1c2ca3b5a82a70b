import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { containersByShipmentIds } from '../containers/queries.ts';
import { containerResources } from '../containers/routes.ts';
import { customFieldConditions } from '../custom-fields/filter.ts';
import type { DB } from '../db/schema.ts';
import { ApiError, badParameter, notFound } from '../http/errors.ts';
import {
  Included,
  pageLinks,
  parseDateParam,
  parseInclude,
  parsePage,
  type Resource,
} from '../http/jsonapi.ts';
import { errorResponses, IdParams, list, PageQuery, query, single, UpdatedAtQuery } from '../http/schemas.ts';
import { customerConditions } from '../parties/filter.ts';
import { portResources, terminalResources } from '../reference/serializers.ts';
import { isUuid } from '../util/uuid.ts';
import { shipmentResources } from './include.ts';
import {
  findShipment,
  listShipments,
  resumeShipmentTracking,
  type ShipmentRow,
  stopShipmentTracking,
  updateShipment,
} from './queries.ts';
import { ShipmentSchema } from './serializer.ts';

const INCLUDES = [
  'containers',
  'pod_terminal',
  'port_of_lading',
  'port_of_discharge',
  'destination',
  'destination_terminal',
] as const;
const SORTS = ['created_at', '-created_at', 'updated_at', '-updated_at'];

type Query = Record<string, string | undefined>;

const Tag = Type.String({ maxLength: 200 });

const PatchBody = Type.Object(
  {
    data: Type.Object(
      {
        type: Type.Optional(Type.Literal('shipment')),
        id: Type.Optional(Type.String()),
        attributes: Type.Object(
          {
            ref_numbers: Type.Optional(Type.Array(Tag, { maxItems: 100 })),
            tags: Type.Optional(Type.Array(Tag, { maxItems: 100, uniqueItems: true })),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const IncludeQuery = Type.Optional(Type.String({ description: `Comma-separated: ${INCLUDES.join(', ')}.` }));

const ListQuery = query({
  ...PageQuery,
  ...UpdatedAtQuery,
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Exact bill of lading, shipment number, ref number, or the number of one of its containers.',
    }),
  ),
  number: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'The number the shipment was requested with (BL or booking).',
    }),
  ),
  'filter[tracking_stopped]': Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: only stopped shipments; false: only those still tracked.',
    }),
  ),
  'filter[customer_id]': Type.Optional(Type.String({ description: 'Only the shipments of this party.' })),
  include: IncludeQuery,
  sort: Type.Optional(Type.String({ description: `One of ${SORTS.join(', ')} (default -created_at).` })),
});

/**
 * A page of shipments as a JSON:API document: at most one query per include path. With
 * `include=containers` the containers are loaded first and their ids serve the `containers`
 * relationship too, so that include costs no extra query.
 */
async function shipmentsDocument(
  db: Kysely<DB>,
  accountId: string,
  rows: ShipmentRow[],
  include: Set<string>,
): Promise<{ data: Resource[]; included?: Resource[] }> {
  const included = new Included();
  let containerIds: Map<string, string[]> | undefined;
  if (include.has('containers')) {
    const containers = await containersByShipmentIds(
      db,
      accountId,
      rows.map((r) => r.id),
    );
    containerIds = new Map();
    for (const c of containers) {
      const list = containerIds.get(c.shipment_id) ?? [];
      list.push(c.id);
      containerIds.set(c.shipment_id, list);
    }
    for (const r of await containerResources(db, accountId, containers)) included.add(r);
  }
  const data = await shipmentResources(db, accountId, rows, containerIds);
  const ports: Array<string | null> = [];
  if (include.has('port_of_lading')) ports.push(...rows.map((r) => r.port_of_lading_locode));
  if (include.has('port_of_discharge')) ports.push(...rows.map((r) => r.port_of_discharge_locode));
  if (include.has('destination')) ports.push(...rows.map((r) => r.destination_locode));
  for (const r of portResources(ports)) included.add(r);
  const terminals: Array<string | null> = [];
  if (include.has('pod_terminal')) terminals.push(...rows.map((r) => r.pod_terminal_id));
  if (include.has('destination_terminal')) terminals.push(...rows.map((r) => r.destination_terminal_id));
  for (const r of terminalResources(terminals)) included.add(r);
  return include.size ? { data, included: included.items } : { data };
}

export function shipmentRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;

  async function respond(accountId: string, row: ShipmentRow, include: Set<string> = new Set()) {
    const doc = await shipmentsDocument(db, accountId, [row], include);
    return { ...doc, data: doc.data[0]! };
  }

  const idOr404 = (id: string) => {
    if (!isUuid(id)) throw notFound('No shipment with this id.');
    return id;
  };

  return async (app) => {
    app.get(
      '/shipments',
      {
        schema: {
          tags: ['Shipments'],
          summary: 'List shipments',
          description:
            'Newest first by default. Search with q or number; filter by tracking state or update time.',
          querystring: ListQuery,
          response: { 200: list(ShipmentSchema), ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Query;
        const page = parsePage(qs);
        const include = parseInclude(qs.include, INCLUDES);
        const sort = qs.sort ?? '-created_at';
        if (!SORTS.includes(sort)) throw badParameter('sort', `sort must be one of ${SORTS.join(', ')}.`);
        const stopped = qs['filter[tracking_stopped]'];
        const { rows, total } = await listShipments(
          db,
          request.accountId,
          {
            q: qs.q?.trim() || undefined,
            number: qs.number?.trim() || undefined,
            tracking_stopped: stopped === undefined ? undefined : stopped === 'true',
            updated_start: parseDateParam(qs, 'filter[updated_at][start]'),
            updated_end: parseDateParam(qs, 'filter[updated_at][end]'),
            where: [...customerConditions(qs), ...customFieldConditions(qs, 's')],
            sort: {
              column: sort.replace('-', '') as 'created_at' | 'updated_at',
              desc: sort.startsWith('-'),
            },
          },
          page,
        );
        return {
          ...(await shipmentsDocument(db, request.accountId, rows, include)),
          links: pageLinks(ctx.baseUrl, '/shipments', qs, page, total),
          meta: { size: page.size, total },
        };
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
      async (request) => {
        const include = parseInclude((request.query as Query).include, INCLUDES);
        const row = await findShipment(db, request.accountId, idOr404(request.params.id));
        if (!row) throw notFound('No shipment with this id.');
        return respond(request.accountId, row, include);
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
      async (request) => {
        const a = request.body.data.attributes;
        for (const [name, values] of [
          ['ref_numbers', a.ref_numbers],
          ['tags', a.tags],
        ] as const) {
          values?.forEach((v, i) => {
            if (v.trim() === '') {
              throw new ApiError(422, [
                {
                  source: { pointer: `/data/attributes/${name}/${i}` },
                  detail: `${name} entries can't be blank`,
                  code: 'blank',
                },
              ]);
            }
          });
        }
        const clean = (v: string[] | undefined) => (v ? [...new Set(v.map((s) => s.trim()))] : undefined);
        const row = await updateShipment(db, request.accountId, idOr404(request.params.id), {
          ref_numbers: clean(a.ref_numbers),
          tags: clean(a.tags),
        });
        if (!row) throw notFound('No shipment with this id.');
        return respond(request.accountId, row);
      },
    );

    app.patch(
      '/shipments/:id/stop_tracking',
      {
        schema: {
          tags: ['Shipments'],
          summary: 'Stop tracking a shipment',
          description:
            "No more updates from the line. Its tracking requests become tracking_stopped (one tracking_request.tracking_stopped event each). Idempotent: a second stop keeps the first stop's time and reason.",
          params: IdParams,
          querystring: query({}),
          response: { 200: single(ShipmentSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const id = idOr404(request.params.id);
        const change = await db
          .transaction()
          .execute((tx) => stopShipmentTracking(tx, request.accountId, id, 'cancelled_by_user'));
        if (!change) throw notFound('No shipment with this id.');
        if (change.trackingRequestIds.length) ctx.notifyWork?.('webhook');
        const row = await findShipment(db, request.accountId, id);
        if (!row) throw notFound('No shipment with this id.');
        return respond(request.accountId, row);
      },
    );

    app.patch(
      '/shipments/:id/resume_tracking',
      {
        schema: {
          tags: ['Shipments'],
          summary: 'Resume tracking a shipment',
          description:
            'Clears the stop, makes the shipment due for a refresh now, and moves its stopped tracking requests back to created. A shipment that is not stopped is left as it is.',
          params: IdParams,
          querystring: query({}),
          response: { 200: single(ShipmentSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const id = idOr404(request.params.id);
        const change = await db
          .transaction()
          .execute((tx) => resumeShipmentTracking(tx, request.accountId, id));
        if (!change) throw notFound('No shipment with this id.');
        if (change.changed) ctx.notifyWork?.('refresh');
        const row = await findShipment(db, request.accountId, id);
        if (!row) throw notFound('No shipment with this id.');
        return respond(request.accountId, row);
      },
    );
  };
}
