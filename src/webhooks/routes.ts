import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import type { Config } from '../config.ts';
import { ApiError, type ErrorCode, invalidAttribute, notFound } from '../http/errors.ts';
import { pageLinks, parsePage } from '../http/jsonapi.ts';
import { errorResponses, IdParams, list, Nullable, PageQuery, query, single } from '../http/schemas.ts';
import { isUuid } from '../util/uuid.ts';
import { EVENT_NAMES, isKnownEvent } from './catalogue.ts';
import { attemptDelivery, DEFAULT_USER_AGENT } from './http-attempt.ts';
import { getAddressPolicy } from './outbound.ts';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  updateWebhook,
  type WebhookHeader,
} from './queries.ts';
import { sampleBody } from './render.ts';
import {
  EventCategorySchema,
  serializeEventCategories,
  serializeWebhook,
  WebhookSchema,
} from './serializer.ts';
import { generateSecret, signatureHeaders } from './sign.ts';

export const MAX_HEADERS = 20;
const ATTRS = '/data/attributes';

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

const CreateBody = Type.Object(
  {
    data: Type.Object(
      {
        type: Type.Optional(Type.Literal('webhook')),
        attributes: Type.Object(
          {
            url: Url,
            events: Type.Optional(Events),
            active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
            headers: Type.Optional(Headers),
            description: Type.Optional(Description),
          },
          { additionalProperties: false },
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
        type: Type.Optional(Type.Literal('webhook')),
        id: Type.Optional(Type.String()),
        attributes: Type.Object(
          {
            url: Type.Optional(Url),
            events: Type.Optional(Events),
            active: Type.Optional(
              Type.Boolean({ description: 'true reactivates a webhook the service deactivated.' }),
            ),
            headers: Type.Optional(Headers),
            description: Type.Optional(Description),
            rotate_secret: Type.Optional(
              Type.Boolean({
                description:
                  'true: a new secret; the old one keeps signing (as previous) for the grace period.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

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

// Names the service sets itself (or that would corrupt the request framing).
const RESERVED = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
  'user-agent',
]);
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\t\x20-\x7e]*$/;

export function reservedHeader(name: string, config: Config): boolean {
  const n = name.toLowerCase();
  const signature = config.webhooks.signatureHeader.toLowerCase();
  return RESERVED.has(n) || n.startsWith('webhook-') || n === signature || n === `${signature}-previous`;
}

function validateHeaders(headers: WebhookHeader[] | null | undefined, config: Config): WebhookHeader[] {
  if (!headers) return [];
  const errors: Array<{ source: { pointer: string }; detail: string; code: ErrorCode }> = [];
  const seen = new Set<string>();
  headers.forEach((h, i) => {
    const at = `${ATTRS}/headers/${i}`;
    if (!TOKEN.test(h.name)) {
      errors.push({
        source: { pointer: `${at}/name` },
        detail: `"${h.name}" is not a valid header name (letters, digits and !#$%&'*+-.^_\`|~ only).`,
        code: 'invalid_header_name',
      });
    } else if (reservedHeader(h.name, config)) {
      errors.push({
        source: { pointer: `${at}/name` },
        detail: `${h.name} is set by the service and cannot be overridden.`,
        code: 'reserved_header',
      });
    } else if (seen.has(h.name.toLowerCase())) {
      errors.push({
        source: { pointer: `${at}/name` },
        detail: `${h.name} is given more than once (header names are case-insensitive).`,
        code: 'duplicate',
      });
    }
    seen.add(h.name.toLowerCase());
    if (!VALUE.test(h.value)) {
      errors.push({
        source: { pointer: `${at}/value` },
        detail: 'Header values may hold printable ASCII characters, spaces and tabs only.',
        code: 'invalid_header_value',
      });
    }
  });
  if (errors.length) throw new ApiError(422, errors);
  return headers.map((h) => ({ name: h.name, value: h.value }));
}

function validateEvents(events: string[], pointer: string): string[] {
  const errors = events.flatMap((ev, i) =>
    isKnownEvent(ev)
      ? []
      : [
          {
            source: { pointer: `${pointer}/${i}` },
            detail: `Unknown event "${ev}". GET /v2/webhooks/events lists them.`,
            code: 'unknown_event' as const,
          },
        ],
  );
  if (errors.length) throw new ApiError(422, errors);
  return events;
}

/** Refuses URLs the outbound address policy would not deliver to, with the guard's reason. */
async function checkUrl(config: Config, url: string, pointer: string): Promise<string> {
  const trimmed = url.trim();
  const verdict = await getAddressPolicy(config).checkUrl(trimmed);
  if (!verdict.ok) {
    throw invalidAttribute(
      pointer,
      `The URL is refused: ${verdict.detail} (${verdict.reason}).`,
      verdict.reason,
    );
  }
  return trimmed;
}

export function webhookRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const { config } = ctx;
  // Built now so a bad WEBHOOK_ALLOWLIST fails at start, not at the first webhook.
  getAddressPolicy(config);
  // The source addresses come from configuration, read when the process started.
  const ipsUpdatedAt = new Date().toISOString();
  const idOr404 = (id: string) => {
    if (!isUuid(id)) throw notFound('No webhook with this id.');
    return id;
  };

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
        const a = request.body.data.attributes;
        const events = a.events ? validateEvents(a.events, `${ATTRS}/events`) : [...EVENT_NAMES];
        const headers = validateHeaders(a.headers, config);
        const url = await checkUrl(config, a.url, `${ATTRS}/url`);
        const w = await insertWebhook(db, request.accountId, {
          url,
          events,
          active: a.active ?? true,
          headers,
          secret: generateSecret(),
          description: a.description ?? null,
        });
        return reply.code(201).send({ data: serializeWebhook(w) });
      },
    );

    app.get(
      '/webhooks',
      {
        schema: {
          tags: ['Webhooks'],
          summary: 'List webhooks',
          description: 'Newest first.',
          querystring: ListQuery,
          response: { 200: list(WebhookSchema), ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Record<string, string | undefined>;
        const page = parsePage(qs);
        const active = qs['filter[active]'];
        const { rows, total } = await listWebhooks(
          db,
          request.accountId,
          { active: active === undefined ? undefined : active === 'true' },
          page,
        );
        const now = new Date();
        return {
          data: rows.map((w) => serializeWebhook(w, now)),
          links: pageLinks(ctx.baseUrl, '/webhooks', qs, page, total),
          meta: { size: page.size, total },
        };
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
      async (request) => {
        const { event, secret } = request.body;
        if (!isKnownEvent(event)) {
          throw invalidAttribute(
            '/event',
            `Unknown event "${event}". GET /v2/webhooks/events lists them.`,
            'unknown_event',
          );
        }
        const url = await checkUrl(config, request.body.url, '/url');
        const notificationId = randomUUID();
        const body = sampleBody(event, { notificationId, webhookId: null });
        // No secret: webhook-id and webhook-timestamp only, no signature.
        const signed = signatureHeaders({
          secrets: secret === undefined ? [] : [secret],
          legacyHeaderName: config.webhooks.signatureHeader,
          msgId: notificationId,
          timestamp: Math.floor(Date.now() / 1000),
          body,
        });
        const outcome = await attemptDelivery({
          url,
          body,
          headers: signed,
          ...(await getAddressPolicy(config).route(url)),
          totalTimeoutMs: config.webhooks.totalTimeoutMs,
          maxExcerptBytes: 0, // the answer body is never returned, whoever the receiver is
        });
        // What went on the wire (attemptDelivery sends lowercase names).
        const requestHeaders: Record<string, string> = {
          'content-type': 'application/json',
          'user-agent': DEFAULT_USER_AGENT,
        };
        for (const [k, v] of Object.entries(signed)) requestHeaders[k.toLowerCase()] = v;
        return {
          url,
          event,
          succeeded: outcome.ok,
          status_code: outcome.statusCode,
          error: outcome.error,
          duration_ms: Math.round(outcome.durationMs),
          request_headers: requestHeaders,
          request_body: body,
        };
      },
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
      async (request) => {
        const w = await findWebhook(db, request.accountId, idOr404(request.params.id));
        if (!w) throw notFound('No webhook with this id.');
        return { data: serializeWebhook(w) };
      },
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
        const id = idOr404(request.params.id);
        const a = request.body.data.attributes;
        // 404 before validation of values: the URL check may take a DNS look-up.
        if (!(await findWebhook(db, request.accountId, id))) throw notFound('No webhook with this id.');
        const events = a.events ? validateEvents(a.events, `${ATTRS}/events`) : undefined;
        const headers = a.headers !== undefined ? validateHeaders(a.headers, config) : undefined;
        const url = a.url !== undefined ? await checkUrl(config, a.url, `${ATTRS}/url`) : undefined;
        const w = await updateWebhook(db, request.accountId, id, {
          url,
          events,
          headers,
          active: a.active,
          description: a.description,
          rotate: a.rotate_secret
            ? { secret: generateSecret(), graceMs: config.webhooks.secretRotationGraceMs }
            : undefined,
        });
        if (!w) throw notFound('No webhook with this id.');
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
          response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(401, 404, 429) },
        },
      },
      async (request, reply) => {
        const deleted = await deleteWebhook(db, request.accountId, idOr404(request.params.id));
        if (!deleted) throw notFound('No webhook with this id.');
        return reply.code(204).send(null);
      },
    );
  };
}
