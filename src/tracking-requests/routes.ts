import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { checkInitialCustomFields } from '../custom-fields/initial.ts';
import { InitialCustomFieldsSchema } from '../custom-fields/request-schemas.ts';
import { ApiError, badParameter, notFound } from '../http/errors.ts';
import { Included, pageLinks, parseDateParam, parseInclude, parsePage } from '../http/jsonapi.ts';
import { errorResponses, IdParams, list, PageQuery, query, single, UpdatedAtQuery } from '../http/schemas.ts';
import { customerOf } from '../parties/service.ts';
import { shipmentIncludes } from '../shipments/include.ts';
import { isUuid } from '../util/uuid.ts';
import {
  batchedTrackingRequestInsert,
  DuplicateTrackingRequest,
  findTrackingRequest,
  listTrackingRequests,
  updateTrackingRequest,
} from './queries.ts';
import { STATUSES, serializeTrackingRequest, TrackingRequestSchema } from './serializer.ts';
import { validateCreate } from './validate.ts';

const Tag = Type.String({ maxLength: 200 });
const StringList = Type.Array(Tag, { maxItems: 100 });

const CreateBody = Type.Object(
  {
    data: Type.Object(
      {
        type: Type.Optional(Type.Literal('tracking_request')),
        attributes: Type.Object(
          {
            request_type: Type.Union(
              [Type.Literal('bill_of_lading'), Type.Literal('booking_number'), Type.Literal('container')],
              { description: 'The kind of number.' },
            ),
            request_number: Type.String({ maxLength: 100 }),
            // Required unless auto_detect_vocc_scac is true (validate.ts).
            scac: Type.Optional(Type.String({ maxLength: 10 })),
            auto_detect_vocc_scac: Type.Optional(Type.Boolean()),
            ref_numbers: Type.Optional(StringList),
            shipment_tags: Type.Optional(StringList),
            // issue 13 (src/custom-fields/initial.ts).
            initial_custom_fields: Type.Optional(InitialCustomFieldsSchema),
          },
          { additionalProperties: false },
        ),
        // issue 13: the customer party (src/parties).
        relationships: Type.Optional(
          Type.Object({
            customer: Type.Optional(
              Type.Object({
                data: Type.Union([
                  Type.Object({ id: Type.String({ maxLength: 100 }), type: Type.Optional(Type.String()) }),
                  Type.Null(),
                ]),
              }),
            ),
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const PatchBody = Type.Object(
  {
    data: Type.Object(
      {
        type: Type.Optional(Type.Literal('tracking_request')),
        id: Type.Optional(Type.String()),
        attributes: Type.Object(
          {
            ref_numbers: Type.Optional(StringList),
            // openapi.json names it `ref_number` (one string); accepted for existing clients.
            ref_number: Type.Optional(Tag),
            tags: Type.Optional(StringList),
            shipment_tags: Type.Optional(StringList),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

// `shipment` is the reference's other name for tracked_object (its document allows both).
const INCLUDES = ['tracked_object', 'shipment'] as const;
const SORTS = ['created_at', '-created_at', 'updated_at', '-updated_at'];

const ListQuery = query({
  ...PageQuery,
  ...UpdatedAtQuery,
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Matches request_number (substring) or a ref number.' }),
  ),
  'filter[status]': Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)))),
  'filter[scac]': Type.Optional(Type.String({ maxLength: 10 })),
  'filter[request_number]': Type.Optional(Type.String({ maxLength: 100 })),
  'filter[created_at][start]': Type.Optional(Type.String()),
  'filter[created_at][end]': Type.Optional(Type.String()),
  include: Type.Optional(Type.String({ description: 'tracked_object' })),
  sort: Type.Optional(Type.String({ description: `One of ${SORTS.join(', ')} (default -created_at).` })),
});

const IncludeQuery = query({ include: Type.Optional(Type.String({ description: 'tracked_object' })) });

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
        const input = validateCreate(request.body.data.attributes);
        const customer_id = await customerOf(db, request.accountId, request.body.data.relationships);
        const initial_custom_fields = await checkInitialCustomFields(
          db,
          request.accountId,
          request.body.data.attributes.initial_custom_fields,
        );
        try {
          const tr = await insertTrackingRequest(request.accountId, {
            ...input,
            customer_id,
            initial_custom_fields,
          });
          ctx.notifyWork?.('tracking_request');
          return reply.code(201).send({ data: serializeTrackingRequest(tr) });
        } catch (err) {
          if (err instanceof DuplicateTrackingRequest) {
            throw new ApiError(422, [
              {
                source: { pointer: '/data/attributes/request_number' },
                title: 'Unprocessable Entity',
                detail: `A tracking request for ${input.request_number} at ${input.scac} is already pending or tracking.`,
                code: 'duplicate',
              },
            ]);
          }
          throw err;
        }
      },
    );

    app.get(
      '/tracking_requests',
      {
        schema: {
          tags: ['Tracking Requests'],
          summary: 'List tracking requests',
          querystring: ListQuery,
          response: { 200: list(TrackingRequestSchema), ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Record<string, string | undefined>;
        const page = parsePage(qs);
        const include = parseInclude(qs.include, INCLUDES);
        const sort = qs.sort ?? '-created_at';
        if (!SORTS.includes(sort)) throw badParameter('sort', `sort must be one of ${SORTS.join(', ')}.`);
        const { rows, total } = await listTrackingRequests(
          db,
          request.accountId,
          {
            status: qs['filter[status]'],
            scac: qs['filter[scac]']?.trim().toUpperCase(),
            request_number: qs['filter[request_number]']?.replace(/\s+/g, '').toUpperCase(),
            q: qs.q?.trim() || undefined,
            created_start: parseDateParam(qs, 'filter[created_at][start]'),
            created_end: parseDateParam(qs, 'filter[created_at][end]'),
            updated_start: parseDateParam(qs, 'filter[updated_at][start]'),
            updated_end: parseDateParam(qs, 'filter[updated_at][end]'),
            sort: {
              column: sort.replace('-', '') as 'created_at' | 'updated_at',
              desc: sort.startsWith('-'),
            },
          },
          page,
        );
        const included = new Included();
        if (include.has('tracked_object') || include.has('shipment')) {
          for (const r of await shipmentIncludes(
            db,
            request.accountId,
            rows.map((r) => r.shipment_id),
          ))
            included.add(r);
        }
        return {
          data: rows.map(serializeTrackingRequest),
          ...(include.size ? { included: included.items } : {}),
          links: pageLinks(ctx.baseUrl, '/tracking_requests', qs, page, total),
          meta: { size: page.size, total },
        };
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
        const tr = isUuid(request.params.id)
          ? await findTrackingRequest(db, request.accountId, request.params.id)
          : undefined;
        if (!tr) throw notFound('No tracking request with this id.');
        const included = new Included();
        if (include.has('tracked_object') || include.has('shipment')) {
          for (const r of await shipmentIncludes(db, request.accountId, [tr.shipment_id])) included.add(r);
        }
        return { data: serializeTrackingRequest(tr), ...(include.size ? { included: included.items } : {}) };
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
        const a = request.body.data.attributes;
        const refs = a.ref_numbers ?? (a.ref_number !== undefined ? [a.ref_number] : undefined);
        const tags = a.tags ?? a.shipment_tags;
        for (const [name, values] of [
          ['ref_numbers', refs],
          ['tags', tags],
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
        const tr = isUuid(request.params.id)
          ? await updateTrackingRequest(db, request.accountId, request.params.id, {
              ref_numbers: clean(refs),
              shipment_tags: clean(tags),
            })
          : undefined;
        if (!tr) throw notFound('No tracking request with this id.');
        return { data: serializeTrackingRequest(tr) };
      },
    );
  };
}
