import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { notFound } from '../http/errors.ts';
import { pageLinks, parsePage, type Resource, selfLink } from '../http/jsonapi.ts';
import {
  errorResponses,
  IdParams,
  ListLinks,
  ListMeta,
  PageQuery,
  query,
  resourceSchema,
} from '../http/schemas.ts';
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
      const lines = searchShippingLines(allShippingLines(), qs.search);
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
    async (request) => {
      const line = shippingLineById(request.params.id) ?? shippingLineByScac(request.params.id);
      if (!line) throw notFound('No shipping line with this id or SCAC.');
      return { data: serializeShippingLine(line) };
    },
  );
};

/** Case-insensitive substring of name, short name, SCAC or an alternative SCAC. */
export function searchShippingLines(lines: ShippingLine[], search: string | undefined): ShippingLine[] {
  const needle = search?.trim().toLowerCase();
  if (!needle) return lines;
  return lines.filter(
    (l) =>
      l.name.toLowerCase().includes(needle) ||
      l.short_name.toLowerCase().includes(needle) ||
      l.scac.toLowerCase().includes(needle) ||
      l.alternative_scacs.some((s) => s.toLowerCase().includes(needle)),
  );
}
