import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { parseInclude } from '../../http/jsonapi.ts';
import { listRequest, listResponse, listRoute } from '../../http/list.ts';
import { errorResponses, IdParams, PageQuery, query } from '../../http/schemas.ts';
import { AnyResource, single } from '../../jsonapi/schemas.ts';
import { INCLUDES, notificationIncludes } from './includes.ts';
import { DELIVERY_STATUSES, NotificationSchema, serializeNotification } from './serializer.ts';
import {
  exampleNotifications,
  getWebhookNotification,
  listWebhookNotifications,
  type NotificationQuery,
  REDELIVER_LIMIT,
  redeliverWebhookNotification,
  redeliverWebhookNotifications,
} from './service.ts';

// HTTP for webhook notifications: request schemas (they are the OpenAPI document) and handlers that
// only translate between HTTP and the service (service.ts).

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
    data: Type.Array(Type.Unknown(), {
      description: 'Example notifications: one with `event`, else one per event.',
    }),
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

export function webhookNotificationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;

  return async (app) => {
    app.get(
      '/webhook_notifications',
      listRoute({
        tags: ['Webhook Notifications'],
        summary: 'List webhook notifications',
        description: 'Newest first. After an outage, list the failed ones and redeliver them.',
        querystring: ListQuery,
        item: NotificationSchema,
      }),
      async (request) => {
        const { qs, page, include } = listRequest(request.query, INCLUDES);
        const { rows, total, attempts } = await listWebhookNotifications(
          db,
          request.accountId,
          qs as NotificationQuery,
          page,
        );
        return listResponse(ctx.baseUrl, '/webhook_notifications', { qs, page }, total, {
          data: rows.map((r) => serializeNotification(r, attempts.get(r.id) ?? [])),
          included: include.size
            ? await notificationIncludes(db, request.accountId, rows, include)
            : undefined,
        });
      },
    );

    app.get(
      '/webhook_notifications/examples',
      {
        schema: {
          tags: ['Webhook Notifications'],
          summary: 'Get webhook notification payload examples',
          description:
            '`data` is an array of example notifications (as the reference document says): with `event` the one a receiver would get for it (a receiver gets `data` as that object), without one per event; `included` their related records.',
          querystring: ExamplesQuery,
          response: { 200: Example, ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => exampleNotifications((request.query as { event?: string }).event),
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
        const result = await redeliverWebhookNotifications(db, request.accountId, request.body);
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
        const { notification: n, attempts } = await getWebhookNotification(
          db,
          request.accountId,
          request.params.id,
        );
        return {
          data: serializeNotification(n, attempts, true),
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
        const { notification, attempts } = await redeliverWebhookNotification(
          db,
          request.accountId,
          request.params.id,
        );
        ctx.notifyWork?.('webhook');
        return reply.code(202).send({ data: serializeNotification(notification, attempts) });
      },
    );
  };
}
