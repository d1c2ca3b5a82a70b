import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { listRequest, listResponse } from '../http/list.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { createBody, ListLinks, Nullable, patchBody } from '../jsonapi/schemas.ts';
import { schemaOf, serializerOf } from '../members/kit.ts';
import { EVENT_NAMES } from '../webhooks/catalogue.ts';
import { ALERT_RULE, SCHEDULES } from './members.ts';
import {
  createRule,
  deleteRule,
  deliveryEnabled,
  editRule,
  getRule,
  listRules,
  unsubscribe,
} from './service.ts';

// HTTP for alert rules (/v2/alert_rules) and the unsubscribe link of alert e-mails. Request schemas
// are the OpenAPI document; handlers only translate between HTTP and the service.

const RuleSchema = schemaOf(ALERT_RULE);
const serialize = serializerOf(ALERT_RULE);

const Events = Type.Array(Type.String({ maxLength: 100 }), {
  minItems: 1,
  maxItems: EVENT_NAMES.length,
  uniqueItems: true,
  description: 'Event names from GET /v2/webhooks/events.',
});
const Recipients = Type.Array(Type.String({ maxLength: 254 }), {
  minItems: 1,
  maxItems: 1000,
  description: 'E-mail addresses (at most ALERT_MAX_RECIPIENTS).',
});
const Schedule = Type.Union(
  SCHEDULES.map((s) => Type.Literal(s)),
  {
    description:
      'immediate: one e-mail per event; daily: one digest per address at daily_at. Default immediate.',
  },
);
const DailyAt = Nullable(
  Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, for daily rules.' }),
);
const TimeZone = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone; default UTC.' });
const Filter = Type.Object(
  {
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50, uniqueItems: true })),
    custom_fields: Type.Optional(
      Type.Record(
        Type.String({ maxLength: 100 }),
        Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean()]),
        { maxProperties: 20 },
      ),
    ),
  },
  { additionalProperties: false },
);

const Attributes = {
  schedule: Type.Optional(Schedule),
  daily_at: Type.Optional(DailyAt),
  time_zone: Type.Optional(TimeZone),
  filter: Type.Optional(Filter),
};
const CreateBody = createBody('alert_rule', { events: Events, recipients: Recipients, ...Attributes });
const PatchBody = patchBody('alert_rule', {
  events: Type.Optional(Events),
  recipients: Type.Optional(Recipients),
  ...Attributes,
});

const Delivery = Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
  description: 'disabled: SMTP_OUT_URL is not set, so rules are kept but no e-mail is sent.',
});
const One = Type.Object({ data: RuleSchema, meta: Type.Object({ email_delivery: Delivery }) });
const Many = Type.Object({
  data: Type.Array(RuleSchema),
  links: ListLinks,
  meta: Type.Object({ size: Type.Integer(), total: Type.Integer(), email_delivery: Delivery }),
});

const PAGE = (title: string, text: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

export function alertRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const { config } = ctx;
  const delivery = () => (deliveryEnabled(config) ? ('enabled' as const) : ('disabled' as const));
  const one = (r: Parameters<typeof serialize>[0]) => ({
    data: serialize(r, undefined),
    meta: { email_delivery: delivery() },
  });
  const tags = ['Alert rules'];

  return async (app) => {
    app.post(
      '/alert_rules',
      {
        schema: {
          tags,
          summary: 'Create an alert rule',
          description:
            'E-mails the named events to the recipients, at once or as a daily digest. An extension.',
          body: CreateBody,
          response: { 201: One, ...errorResponses(400, 401, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => {
        const r = await createRule(db, config, request.accountId, request.body.data.attributes);
        return reply.code(201).send(one(r));
      },
    );

    app.get(
      '/alert_rules',
      {
        schema: {
          tags,
          summary: 'List alert rules',
          description: 'Newest first.',
          querystring: query(PageQuery),
          response: { 200: Many, ...errorResponses(400, 401, 429) },
        },
      },
      async (request) => {
        const { qs, page } = listRequest(request.query);
        const { rows, total } = await listRules(db, request.accountId, page);
        const body = listResponse(ctx.baseUrl, '/alert_rules', { qs, page }, total, {
          data: rows.map((r) => serialize(r, undefined)),
        });
        return { ...body, meta: { ...body.meta, email_delivery: delivery() } };
      },
    );

    // The link in every alert e-mail: no API key. It answers the same small page whatever the rule
    // is or was, and nothing about the account; a link that is not one of ours is a 404.
    const unsubscribeRoute = {
      config: { auth: false },
      schema: {
        hide: true,
        querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 600 })) }),
      },
    } as const;
    const unsubscribeHandler = async (
      request: { query: { token?: string } },
      reply: {
        code(n: number): typeof reply;
        header(k: string, v: string): typeof reply;
        type(t: string): typeof reply;
        send(b: string): unknown;
      },
    ) => {
      const ok = request.query.token ? await unsubscribe(db, config, request.query.token) : false;
      reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .type('text/html; charset=utf-8');
      return ok
        ? reply
            .code(200)
            .send(PAGE('Unsubscribed', 'This address will receive no more e-mails from this alert.'))
        : reply.code(404).send(PAGE('Link not valid', 'This unsubscribe link is not valid.'));
    };
    app.get('/alert_rules/unsubscribe', unsubscribeRoute, unsubscribeHandler);
    // One-click unsubscribe (RFC 8058): mail programs POST to the List-Unsubscribe address.
    app.post('/alert_rules/unsubscribe', unsubscribeRoute, unsubscribeHandler);

    app.get(
      '/alert_rules/:id',
      {
        schema: {
          tags,
          summary: 'Get an alert rule',
          params: IdParams,
          response: { 200: One, ...errorResponses(401, 404, 429) },
        },
      },
      async (request) => one(await getRule(db, request.accountId, request.params.id)),
    );

    app.patch(
      '/alert_rules/:id',
      {
        schema: {
          tags,
          summary: 'Edit an alert rule',
          description:
            'Replaces the attributes given; the rule must stay valid (a daily rule needs daily_at). Removed recipients get nothing more that was waiting for them.',
          params: IdParams,
          body: PatchBody,
          response: { 200: One, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request) =>
        one(await editRule(db, config, request.accountId, request.params.id, request.body.data.attributes)),
    );

    app.delete(
      '/alert_rules/:id',
      {
        schema: {
          tags,
          summary: 'Delete an alert rule',
          description: 'What it had not sent yet is dropped with it.',
          params: IdParams,
          response: {
            200: Type.Object({}, { description: 'Deleted: an empty object.' }),
            ...errorResponses(401, 404, 429),
          },
        },
      },
      async (request) => {
        await deleteRule(db, request.accountId, request.params.id);
        return {};
      },
    );
  };
}
