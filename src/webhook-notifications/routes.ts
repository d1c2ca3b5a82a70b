import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import type { DB } from '../db/schema.ts';
import { ApiError, badParameter, notFound } from '../http/errors.ts';
import { parseDateParam, parseInclude, parsePage } from '../http/jsonapi.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { Included, pageLinks, type Resource } from '../jsonapi/document.ts';
import { AnyResource, list, single } from '../jsonapi/schemas.ts';
import { containerResources } from '../shipments/containers/documents.ts';
import { containersByIds } from '../shipments/containers/queries.ts';
import { serializeTransportEvent } from '../shipments/containers/serializer.ts';
import { trackingRequestsByIds } from '../tracking-requests/queries.ts';
import { serializeTrackingRequest } from '../tracking-requests/serializer.ts';
import { isUuid } from '../util/uuid.ts';
import { EVENT_NAMES, isKnownEvent } from '../webhooks/catalogue.ts';
import { webhooksByIds } from '../webhooks/queries.ts';
import { sampleBody } from '../webhooks/render.ts';
import { serializeWebhook } from '../webhooks/serializer.ts';
import {
  attemptsOf,
  findNotification,
  listNotifications,
  type Notification,
  redeliverNotification,
  redeliverNotifications,
  transportEventsByIds,
  webhookState,
} from './queries.ts';
import { DELIVERY_STATUSES, NotificationSchema, serializeNotification } from './serializer.ts';

/** Most notifications one bulk redeliver call queues. */
export const REDELIVER_LIMIT = 10_000;

const INCLUDES = ['webhook', 'reference_object'] as const;
const INCLUDE_DOC = Type.String({ description: 'Comma list of: webhook, reference_object.' });

const ListQuery = query({
  ...PageQuery,
  'filter[delivery_status]': Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
  'filter[event]': Type.Optional(Type.String({ maxLength: 100, description: 'An event name.' })),
  'filter[webhook_id]': Type.Optional(Type.String({ description: 'Notifications of one webhook.' })),
  'filter[created_at][start]': Type.Optional(Type.String({ description: 'Created at or after (ISO 8601).' })),
  'filter[created_at][end]': Type.Optional(Type.String({ description: 'Created at or before (ISO 8601).' })),
  include: Type.Optional(INCLUDE_DOC),
});

const ExamplesQuery = query({
  event: Type.Optional(
    Type.String({ maxLength: 100, description: 'One event; omitted: one example of every event.' }),
  ),
});

const Example = Type.Object(
  {
    data: Type.Unknown({ description: 'The notification (an array of them without `event`).' }),
    included: Type.Optional(Type.Array(AnyResource)),
    meta: Type.Optional(Type.Object({ total: Type.Integer() })),
  },
  { additionalProperties: true },
);

const BulkRedeliverBody = Type.Object(
  {
    webhook_id: Type.String({ format: 'uuid' }),
    delivery_status: Type.Optional(
      Type.Union([Type.Literal('failed'), Type.Literal('succeeded')], { description: 'Default failed.' }),
    ),
    created_at_start: Type.Optional(Type.String({ format: 'date-time' })),
    created_at_end: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { additionalProperties: false },
);

const inactive = () =>
  new ApiError(409, [
    {
      detail: 'The webhook is inactive: set active to true first (PATCH /v2/webhooks/{id}), then redeliver.',
      code: 'webhook_inactive',
    },
  ]);

/** Webhooks and reference objects of these notifications, for `include`. */
async function notificationIncludes(
  db: Kysely<DB>,
  accountId: string,
  rows: Notification[],
  include: Set<string>,
): Promise<Resource[]> {
  const included = new Included();
  if (include.has('webhook')) {
    const now = new Date();
    for (const w of await webhooksByIds(
      db,
      accountId,
      rows.map((r) => r.webhook_id),
    ))
      included.add(serializeWebhook(w, now));
  }
  if (include.has('reference_object')) {
    const ids = (type: string) => rows.filter((r) => r.reference_type === type).map((r) => r.reference_id);
    for (const tr of await trackingRequestsByIds(db, accountId, ids('tracking_request')))
      included.add(serializeTrackingRequest(tr));
    for (const e of await transportEventsByIds(db, accountId, ids('transport_event')))
      included.add(serializeTransportEvent(e));
    const containers = await containersByIds(db, accountId, ids('container'));
    for (const c of await containerResources(db, accountId, containers)) included.add(c);
    // estimated_event, container_created_event and container_updated_event have no resource
    // serializer outside the notification renderer yet: the relationship names them, they are not included.
  }
  return included.items;
}

export function webhookNotificationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;

  return async (app) => {
    app.get(
      '/webhook_notifications',
      {
        schema: {
          tags: ['Webhook Notifications'],
          summary: 'List webhook notifications',
          description: 'Newest first. After an outage, list the failed ones and redeliver them.',
          querystring: ListQuery,
          response: { 200: list(NotificationSchema), ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Record<string, string | undefined>;
        const page = parsePage(qs);
        const include = parseInclude(qs.include, INCLUDES);
        const event = qs['filter[event]'];
        if (event !== undefined && !isKnownEvent(event)) {
          throw badParameter(
            'filter[event]',
            `Unknown event "${event}". GET /v2/webhooks/events lists them.`,
          );
        }
        const webhookId = qs['filter[webhook_id]'];
        if (webhookId !== undefined && !isUuid(webhookId)) {
          throw badParameter(
            'filter[webhook_id]',
            `filter[webhook_id] must be a webhook id, got "${webhookId}".`,
          );
        }
        const { rows, total } = await listNotifications(
          db,
          request.accountId,
          {
            delivery_status: qs['filter[delivery_status]'],
            event,
            webhook_id: webhookId,
            created_start: parseDateParam(qs, 'filter[created_at][start]'),
            created_end: parseDateParam(qs, 'filter[created_at][end]'),
          },
          page,
        );
        const attempts = await attemptsOf(
          db,
          rows.map((r) => r.id),
          false,
        );
        return {
          data: rows.map((r) => serializeNotification(r, attempts.get(r.id) ?? [])),
          ...(include.size
            ? { included: await notificationIncludes(db, request.accountId, rows, include) }
            : {}),
          links: pageLinks(ctx.baseUrl, '/webhook_notifications', qs, page, total),
          meta: { size: page.size, total },
        };
      },
    );

    app.get(
      '/webhook_notifications/examples',
      {
        schema: {
          tags: ['Webhook Notifications'],
          summary: 'Get webhook notification payload examples',
          description:
            'With `event`: the body exactly as a receiver would get it. Without: `data` holds one example notification per event, `included` their related records.',
          querystring: ExamplesQuery,
          response: { 200: Example, ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const { event } = request.query as { event?: string };
        if (event !== undefined) {
          if (!isKnownEvent(event)) {
            throw badParameter('event', `Unknown event "${event}". GET /v2/webhooks/events lists them.`);
          }
          return JSON.parse(sampleBody(event, { notificationId: randomUUID(), webhookId: null }));
        }
        const included = new Included();
        const data: unknown[] = [];
        for (const name of EVENT_NAMES) {
          const body = JSON.parse(sampleBody(name, { notificationId: randomUUID(), webhookId: null })) as {
            data: unknown;
            included?: Resource[];
          };
          data.push(body.data);
          for (const r of body.included ?? []) included.add(r);
        }
        return { data, included: included.items, meta: { total: data.length } };
      },
    );

    app.post(
      '/webhook_notifications/redeliver',
      {
        schema: {
          tags: ['Webhook Notifications'],
          summary: 'Redeliver the notifications of a webhook',
          description: `Queues again every notification of the webhook with the given delivery_status (default failed), optionally within a created_at range; at most ${REDELIVER_LIMIT} per call, oldest first (meta.remaining says how many still match).`,
          body: BulkRedeliverBody,
          response: {
            202: Type.Object({
              meta: Type.Object({ redelivered: Type.Integer(), remaining: Type.Integer() }),
            }),
            ...errorResponses(400, 401, 404, 409, 413, 415, 422, 429),
          },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const webhook = await webhookState(db, request.accountId, b.webhook_id);
        if (!webhook) throw notFound('No webhook with this id.');
        if (!webhook.active) throw inactive();
        const result = await redeliverNotifications(
          db,
          request.accountId,
          {
            webhook_id: webhook.id,
            delivery_status: b.delivery_status ?? 'failed',
            created_start: b.created_at_start ? new Date(b.created_at_start) : undefined,
            created_end: b.created_at_end ? new Date(b.created_at_end) : undefined,
          },
          REDELIVER_LIMIT,
        );
        if (result.redelivered > 0) ctx.notifyWork?.('webhook');
        return reply.code(202).send({ meta: result });
      },
    );

    app.get(
      '/webhook_notifications/:id',
      {
        schema: {
          tags: ['Webhook Notifications'],
          summary: 'Get a webhook notification',
          description: 'With the full attempt log, including the start of each answer body.',
          params: IdParams,
          querystring: query({ include: Type.Optional(INCLUDE_DOC) }),
          response: { 200: single(NotificationSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const include = parseInclude((request.query as { include?: string }).include, INCLUDES);
        const n = isUuid(request.params.id)
          ? await findNotification(db, request.accountId, request.params.id)
          : undefined;
        if (!n) throw notFound('No webhook notification with this id.');
        const attempts = await attemptsOf(db, [n.id], true);
        return {
          data: serializeNotification(n, attempts.get(n.id) ?? [], true),
          ...(include.size
            ? { included: await notificationIncludes(db, request.accountId, [n], include) }
            : {}),
        };
      },
    );

    app.post(
      '/webhook_notifications/:id/redeliver',
      {
        schema: {
          tags: ['Webhook Notifications'],
          summary: 'Redeliver a webhook notification',
          description:
            'Queues the same notification (same body, same data.id) for delivery again, whatever its delivery_status.',
          params: IdParams,
          response: { 202: single(NotificationSchema), ...errorResponses(401, 404, 409, 429) },
        },
      },
      async (request, reply) => {
        const id = request.params.id;
        const n = isUuid(id) ? await findNotification(db, request.accountId, id) : undefined;
        if (!n) throw notFound('No webhook notification with this id.');
        const webhook = await webhookState(db, request.accountId, n.webhook_id);
        if (!webhook?.active) throw inactive();
        const after = await redeliverNotification(db, request.accountId, id);
        if (!after) throw notFound('No webhook notification with this id.');
        ctx.notifyWork?.('webhook');
        const attempts = await attemptsOf(db, [id], false);
        return reply.code(202).send({ data: serializeNotification(after, attempts.get(id) ?? []) });
      },
    );
  };
}
