import { Type } from 'typebox';
import { PageQuery, query, UpdatedAtQuery } from '../http/schemas.ts';
import { patchBody } from '../jsonapi/schemas.ts';
import { SORTS } from './service.ts';

// Request schemas of the shipment endpoints (TypeBox; they validate requests and become the
// published OpenAPI document).

export const INCLUDES = [
  'containers',
  'pod_terminal',
  'port_of_lading',
  'port_of_discharge',
  'destination',
  'destination_terminal',
] as const;

const Tag = Type.String({ maxLength: 200 });

export const PatchBody = patchBody('shipment', {
  ref_numbers: Type.Optional(Type.Array(Tag, { maxItems: 100 })),
  tags: Type.Optional(Type.Array(Tag, { maxItems: 100, uniqueItems: true })),
});

export const IncludeQuery = Type.Optional(
  Type.String({ description: `Comma-separated: ${INCLUDES.join(', ')}.` }),
);

export const ListQuery = query({
  ...PageQuery,
  ...UpdatedAtQuery,
  q: Type.Optional(
    Type.String({
      maxLength: 200,
      description:
        'Exact bill of lading, shipment number, ref number, or the number of one of its containers.',
    }),
  ),
  number: Type.Optional(
    Type.String({
      maxLength: 100,
      description: 'The number the shipment was requested with (BL or booking).',
    }),
  ),
  'filter[tracking_stopped]': Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'true: only stopped shipments; false: only those still tracked.',
    }),
  ),
  'filter[customer_id]': Type.Optional(Type.String({ description: 'Only the shipments of this party.' })),
  include: IncludeQuery,
  sort: Type.Optional(Type.String({ description: `One of ${SORTS.join(', ')} (default -created_at).` })),
});
