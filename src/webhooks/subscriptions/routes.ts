import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { listRequest, listResponse, listRoute } from '../../http/list.ts';
import { errorResponses, IdParams, PageQuery, query } from '../../http/schemas.ts';
import { createBody, Nullable, patchBody, single } from '../../jsonapi/schemas.ts';
import { EVENT_NAMES } from '../catalogue.ts';
import { getAddressPolicy } from '../delivery/outbound.ts';
import {
  EventCategorySchema,
  serializeEventCategories,
  serializeWebhook,
  WebhookSchema,
} from './serializer.ts';
import {
  createWebhook,
  deleteWebhook,
  editWebhook,
  getWebhook,
  listWebhooks,
  triggerTestDelivery,
} from './service.ts';

// HTTP for webhook subscriptions: request schemas (they are the OpenAPI document) and handlers that
// only translate between HTTP and the service (service.ts).

export const MAX_HEADERS = 20;

const HeaderInput = Type.Object(
  { name: Type.String({ maxLength: 100 }), value: Type.String({ maxLength: 1000 }) },
  { additionalProperties: false },
);
const Headers = Nullable(
  Type.Array(HeaderInput, {
    maxItems: MAX_HEADERS,
    description: `Up to ${MAX_HEADERS} extra headers sent with every delivery. See docs/webhooks.md for the names that are reserved.`,
  }),
);
const Events = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: EVENT_NAMES.length,
  uniqueItems: true,
  description: 'Event names from GET /v2/webhooks/events. On create, omitted means every event.',
});
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'https URL of the receiver (http only when the operator allows it).',
});
const Description = Nullable(Type.String({ maxLength: 500 }));

const CreateBody = createBody('webhook', {
  url: Url,
  events: Type.Optional(Events),
  active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
  headers: Type.Optional(Headers),
  description: Type.Optional(Description),
});

const PatchBody = patchBody('webhook', {
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  active: Type.Optional(Type.Boolean({ description: 'true reactivates a webhook the service deactivated.' })),
  headers: Type.Optional(Headers),
  description: Type.Optional(Description),
  rotate_secret: Type.Optional(
    Type.Boolean({
      description: 'true: a new secret; the old one keeps signing (as previous) for the grace period.',
    }),
  ),
});

const TriggerBody = Type.Object(
  {
    url: Url,
    event: Type.String({ maxLength: 100, description: 'An event name, e.g. tracking_request.succeeded.' }),
    secret: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: 'Signs the test delivery like a real one. Any string; a whsec_ secret works too.',
      }),
    ),
  },
  { additionalProperties: false },
);

const TriggerResult = Type.Object({
  url: Type.String(),
  event: Type.String(),
  succeeded: Type.Boolean({ description: 'The receiver answered 200, 201, 202 or 204.' }),
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  duration_ms: Type.Integer(),
  request_headers: Type.Record(Type.String(), Type.String()),
  request_body: Type.String(),
});

const ListQuery = query({
  ...PageQuery,
  'filter[active]': Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});

export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const { config } = ctx;
  // Built now so a bad WEBHOOK_ALLOWLIST fails at start, not at the first webhook.
  getAddressPolicy(config);
  // The source addresses come from configuration, read when the process started.
  const ipsUpdatedAt = new Date().toISOString();

  return async (app) => {
    app.post(
      '/webhooks',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'Create a webhook',
          description:
            'Answers with the webhook including its generated secret. `events` omitted means every event.',
          body: CreateBody,
          response: { 201: single(WebhookSchema), ...errorResponses(400, 401, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => {
        const w = await createWebhook(
          db,
          config,
          request.accountId,
          request.body.data.attributes,
          request.log,
        );
        return reply.code(201).send({ data: serializeWebhook(w) });
      },
    );

    app.get(
      '/webhooks',
      listRoute({
        tags: ['Webhooks'],
        summary: 'List webhooks',
        description: 'Newest first.',
        querystring: ListQuery,
        item: WebhookSchema,
      }),
      async (request) => {
        const { qs, page } = listRequest(request.query);
        const active = qs['filter[active]'];
        const { rows, total } = await listWebhooks(
          db,
          request.accountId,
          { active: active === undefined ? undefined : active === 'true' },
          page,
        );
        const now = new Date();
        return listResponse(ctx.baseUrl, '/webhooks', { qs, page }, total, {
          data: rows.map((w) => serializeWebhook(w, now)),
        });
      },
    );

    app.get(
      '/webhooks/events',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'List webhook events',
          description: 'Every event a webhook can subscribe to, by category.',
          response: {
            200: Type.Object({ data: Type.Array(EventCategorySchema) }),
            ...errorResponses(401, 429),
          },
        },
      },
      async () => ({ data: serializeEventCategories() }),
    );

    app.get(
      '/webhooks/ips',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'List webhook source IPs',
          description:
            'The addresses deliveries come from (WEBHOOK_SOURCE_IPS). Cache it and refresh it daily.',
          response: {
            200: Type.Object({
              webhook_notification_ips: Type.Array(Type.String()),
              last_updated: Type.String({ format: 'date-time' }),
            }),
            ...errorResponses(401, 429),
          },
        },
      },
      async () => ({ webhook_notification_ips: config.webhooks.sourceIps, last_updated: ipsUpdatedAt }),
    );

    app.post(
      '/webhooks/trigger',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'Trigger a webhook test delivery',
          description:
            'POSTs one sample notification of `event` to `url`, once, signed when `secret` is given. Stores nothing. The receiver’s answer body is never returned.',
          body: TriggerBody,
          response: { 200: TriggerResult, ...errorResponses(400, 401, 413, 415, 422, 429) },
        },
      },
      async (request) => triggerTestDelivery(config, request.body, request.log),
    );

    app.get(
      '/webhooks/:id',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'Get a webhook',
          params: IdParams,
          response: { 200: single(WebhookSchema), ...errorResponses(401, 404, 429) },
        },
      },
      async (request) => ({
        data: serializeWebhook(await getWebhook(db, request.accountId, request.params.id)),
      }),
    );

    app.patch(
      '/webhooks/:id',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'Edit a webhook',
          description:
            'Replaces the attributes given. `active: true` reactivates a deactivated webhook; `rotate_secret: true` issues a new secret.',
          params: IdParams,
          body: PatchBody,
          response: { 200: single(WebhookSchema), ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request) => {
        const w = await editWebhook(
          db,
          config,
          request.accountId,
          request.params.id,
          request.body.data.attributes,
          request.log,
        );
        return { data: serializeWebhook(w) };
      },
    );

    app.delete(
      '/webhooks/:id',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'Delete a webhook',
          description:
            'Its notifications (pending ones included) and their attempt logs are deleted with it.',
          params: IdParams,
          response: {
            200: Type.Object({}, { description: 'Deleted: an empty object (the reference answers 200).' }),
            ...errorResponses(401, 404, 429),
          },
        },
      },
      async (request) => {
        await deleteWebhook(db, request.accountId, request.params.id);
        // 200 as in the reference document (not 204): its clients are written for 200.
        return {};
      },
    );
  };
}
