import { Type } from 'typebox';
import { type Resource, selfLink } from '../jsonapi/resource.ts';
import { resourceSchema } from '../jsonapi/schemas.ts';
import type { ShippingLine } from '../reference/data.ts';

export const ShippingLineSchema = resourceSchema(
  'shipping_line',
  Type.Object({
    scac: Type.String(),
    name: Type.String(),
    short_name: Type.String(),
    alternative_scacs: Type.Array(Type.String()),
    // The live service serves one bill of lading prefix per line; the first of ours, or null.
    bol_prefix: Type.Union([Type.String(), Type.Null()]),
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
      bol_prefix: l.bol_prefixes[0] ?? null,
      bill_of_lading_tracking_support: l.bill_of_lading_tracking_support,
      booking_number_tracking_support: l.booking_number_tracking_support,
      container_number_tracking_support: l.container_number_tracking_support,
    },
    links: selfLink(`/shipping_lines/${l.id}`),
  };
}
