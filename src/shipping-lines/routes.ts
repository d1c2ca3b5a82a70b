import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, IdParams, query } from '../http/schemas.ts';
import { selfLink } from '../jsonapi/document.ts';
import { ShippingLineSchema, serializeShippingLine } from './serializer.ts';
import { getShippingLine, listShippingLines } from './service.ts';

// HTTP <-> service translation for /shipping_lines.

export const shippingLineRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/shipping_lines',
    {
      schema: {
        tags: ['Shipping Lines'],
        summary: 'List shipping lines (not paginated)',
        querystring: query({}),
        response: {
          200: Type.Object({
            data: Type.Array(ShippingLineSchema),
            links: Type.Object({ self: Type.String() }),
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async () => ({
      data: listShippingLines().map(serializeShippingLine),
      links: selfLink('/shipping_lines'),
    }),
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
