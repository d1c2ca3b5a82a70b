import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { parsePage } from '../http/jsonapi.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { pageLinks, selfLink } from '../jsonapi/resource.ts';
import { ListLinks, ListMeta } from '../jsonapi/schemas.ts';
import { PartySchema, serializeParty } from './serializer.ts';
import { createParty, editParty, getParty, pageOfParties } from './service.ts';

const Body = Type.Object(
  {
    data: Type.Object(
      {
        id: Type.Optional(Type.String()),
        type: Type.Optional(Type.Literal('party')),
        attributes: Type.Object(
          { company_name: Type.Optional(Type.String({ maxLength: 200 })) },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const One = Type.Object({ data: PartySchema, links: Type.Object({ self: Type.String() }) });
const TAGS = ['Parties'];

export function partyRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const one = (p: Parameters<typeof serializeParty>[0]) => ({
    data: serializeParty(p),
    links: selfLink(`/parties/${p.id}`),
  });
  return async (app) => {
    app.get(
      '/parties',
      {
        schema: {
          tags: TAGS,
          summary: 'List parties',
          querystring: query({ ...PageQuery }),
          response: {
            200: Type.Object({ data: Type.Array(PartySchema), links: ListLinks, meta: ListMeta }),
            ...errorResponses(400, 401, 429),
          },
        },
      },
      async (request) => {
        const qs = request.query as Record<string, string | undefined>;
        const page = parsePage(qs);
        const { rows, total } = await pageOfParties(db, request.accountId, page);
        return {
          data: rows.map(serializeParty),
          links: pageLinks(ctx.baseUrl, '/parties', qs, page, total),
          meta: { size: page.size, total },
        };
      },
    );
    app.post(
      '/parties',
      {
        schema: {
          tags: TAGS,
          summary: 'Create a party',
          body: Body,
          response: { 201: One, ...errorResponses(400, 401, 413, 415, 422, 429) },
        },
      },
      async (request, reply) =>
        reply.code(201).send(one(await createParty(db, request.accountId, request.body.data.attributes))),
    );
    app.get(
      '/parties/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'Get a party',
          params: IdParams,
          response: { 200: One, ...errorResponses(401, 404, 429) },
        },
      },
      async (request) => one(await getParty(db, request.accountId, request.params.id)),
    );
    app.patch(
      '/parties/:id',
      {
        schema: {
          tags: TAGS,
          summary: 'Edit a party',
          description: 'Renaming a party renames the customer_name of its shipments.',
          params: IdParams,
          body: Body,
          response: { 200: One, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request) =>
        one(await editParty(db, request.accountId, request.params.id, request.body.data.attributes)),
    );
  };
}
