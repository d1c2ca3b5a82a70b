import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../http/errors.ts';
import { errorResponses, IdParams, query } from '../http/schemas.ts';
import { type Resource, selfLink } from '../jsonapi/document.ts';
import { resourceSchema } from '../jsonapi/schemas.ts';
import {
  allShippingLines,
  type ShippingLine,
  shippingLineById,
  shippingLineByScac,
} from '../reference/data.ts';

export const ShippingLineSchema = resourceSchema(
  'shipping_line',
  Type.Object({
    scac: Type.String(),
    name: Type.String(),
    short_name: Type.String(),
    alternative_scacs: Type.Array(Type.String()),
    bill_of_lading_tracking_support: Type.Boolean(),
    booking_number_tracking_support: Type.Boolean(),
    container_number_tracking_support: Type.Boolean(),
  }),
  null,
);

export function serializeShippingLine(l: ShippingLine): Resource {
  return {
    id: l.id,
    type: 'shipping_line',
    attributes: {
      scac: l.scac,
      name: l.name,
      short_name: l.short_name,
      alternative_scacs: l.alternative_scacs,
      bill_of_lading_tracking_support: l.bill_of_lading_tracking_support,
      booking_number_tracking_support: l.booking_number_tracking_support,
      container_number_tracking_support: l.container_number_tracking_support,
    },
    links: selfLink(`/shipping_lines/${l.id}`),
  };
}

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
    async () => ({ data: allShippingLines().map(serializeShippingLine), links: selfLink('/shipping_lines') }),
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
    async (request) => {
      const line = shippingLineById(request.params.id) ?? shippingLineByScac(request.params.id);
      if (!line) throw notFound('No shipping line with this id or SCAC.');
      return { data: serializeShippingLine(line) };
    },
  );
};
