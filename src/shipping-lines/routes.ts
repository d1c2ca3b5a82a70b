import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { parsePage } from '../http/jsonapi.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { pageLinks, selfLink } from '../jsonapi/resource.ts';
import { ListLinks, ListMeta } from '../jsonapi/schemas.ts';
import { ShippingLineSchema, serializeShippingLine } from './serializer.ts';
import { getShippingLine, listShippingLines } from './service.ts';

// HTTP <-> service translation for /shipping_lines.

export const shippingLineRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/shipping_lines',
    {
      schema: {
        tags: ['Shipping Lines'],
        summary: 'List shipping lines',
        description:
          'Without paging parameters every line is returned on one page, as the reference does; `search` keeps the lines whose name, short name or SCAC contains it (case-insensitive).',
        querystring: query({
          search: Type.Optional(
            Type.String({ maxLength: 200, description: 'Substring of name, short name or SCAC.' }),
          ),
          ...PageQuery,
        }),
        response: {
          200: Type.Object({
            data: Type.Array(ShippingLineSchema),
            links: Type.Union([ListLinks, Type.Object({ self: Type.String() })]),
            meta: Type.Optional(ListMeta),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const qs = request.query as Record<string, string | undefined>;
      const lines = listShippingLines(qs.search);
      const paged = qs['page[number]'] !== undefined || qs['page[size]'] !== undefined;
      if (!paged && qs.search === undefined) {
        return { data: lines.map(serializeShippingLine), links: selfLink('/shipping_lines') };
      }
      const page = paged ? parsePage(qs) : { number: 1, size: Math.max(1, lines.length) };
      const slice = lines.slice((page.number - 1) * page.size, page.number * page.size);
      return {
        data: slice.map(serializeShippingLine),
        links: pageLinks('', '/shipping_lines', qs, page, lines.length),
        meta: { size: page.size, total: lines.length },
      };
    },
  );
  app.get(
    '/shipping_lines/:id',
    {
      schema: {
        tags: ['Shipping Lines'],
        summary: 'Get a shipping line by id or SCAC',
        params: IdParams,
        response: { 200: Type.Object({ data: ShippingLineSchema }), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => ({ data: serializeShippingLine(getShippingLine(request.params.id)) }),
  );
};
