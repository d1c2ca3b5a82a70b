import { Type } from 'typebox';
import { InitialCustomFieldsSchema } from '../custom-fields/request-schemas.ts';
import { PageQuery, query, UpdatedAtQuery } from '../http/schemas.ts';
import { Nullable, patchBody } from '../jsonapi/schemas.ts';
import { STATUSES } from './serializer.ts';
import { SORTS } from './service.ts';

// Request and response schemas of the tracking request endpoints (TypeBox; they validate requests
// and become the published OpenAPI document). Kept apart from routes.ts so the routes read as
// HTTP <-> service translation only.

const Tag = Type.String({ maxLength: 200 });
const StringList = Type.Array(Tag, { maxItems: 100 });

export const CreateBody = Type.Object(
  {
    data: Type.Object(
      {
        type: Type.Optional(Type.Literal('tracking_request')),
        attributes: Type.Object(
          {
            request_type: Type.Union(
              [Type.Literal('bill_of_lading'), Type.Literal('booking_number'), Type.Literal('container')],
              { description: 'The kind of number.' },
            ),
            request_number: Type.String({ maxLength: 100 }),
            // Required unless auto_detect_vocc_scac is true (validate.ts).
            scac: Type.Optional(Type.String({ maxLength: 10 })),
            auto_detect_vocc_scac: Type.Optional(Type.Boolean()),
            ref_numbers: Type.Optional(StringList),
            shipment_tags: Type.Optional(StringList),
            // Applied to the shipment (and containers) once they appear (src/custom-fields/initial.ts).
            initial_custom_fields: Type.Optional(InitialCustomFieldsSchema),
          },
          { additionalProperties: false },
        ),
        // The customer party (src/parties).
        relationships: Type.Optional(
          Type.Object({
            customer: Type.Optional(
              Type.Object({
                data: Type.Union([
                  Type.Object({ id: Type.String({ maxLength: 100 }), type: Type.Optional(Type.String()) }),
                  Type.Null(),
                ]),
              }),
            ),
          }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const PatchBody = patchBody('tracking_request', {
  ref_numbers: Type.Optional(StringList),
  // openapi.json names it `ref_number` (one string); accepted for existing clients.
  ref_number: Type.Optional(Tag),
  tags: Type.Optional(StringList),
  shipment_tags: Type.Optional(StringList),
});

// `shipment` is the reference's other name for tracked_object (its document allows both).
export const INCLUDES = ['tracked_object', 'shipment'] as const;

export const ListQuery = query({
  ...PageQuery,
  ...UpdatedAtQuery,
  q: Type.Optional(
    Type.String({ maxLength: 200, description: 'Matches request_number (substring) or a ref number.' }),
  ),
  'filter[status]': Type.Optional(Type.Union(STATUSES.map((s) => Type.Literal(s)))),
  'filter[scac]': Type.Optional(Type.String({ maxLength: 10 })),
  'filter[request_number]': Type.Optional(Type.String({ maxLength: 100 })),
  'filter[created_at][start]': Type.Optional(Type.String()),
  'filter[created_at][end]': Type.Optional(Type.String()),
  include: Type.Optional(Type.String({ description: 'tracked_object' })),
  sort: Type.Optional(Type.String({ description: `One of ${SORTS.join(', ')} (default -created_at).` })),
});

export const IncludeQuery = query({ include: Type.Optional(Type.String({ description: 'tracked_object' })) });

// POST /tracking_requests/infer_number: the body is `{ "number": "..." }` as in openapi.json;
// the JSON:API form `{ "data": { "attributes": { "number": "..." } } }` is accepted too.

export const InferBody = Type.Object(
  {
    number: Type.Optional(
      Type.String({ maxLength: 100, description: 'Container, bill of lading or booking number.' }),
    ),
    data: Type.Optional(
      Type.Object(
        {
          type: Type.Optional(Type.String()),
          attributes: Type.Object(
            { number: Type.String({ maxLength: 100 }) },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const CandidateSchema = Type.Object({ scac: Type.String(), name: Type.String(), confidence: Type.Number() });

export const InferenceSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('infer_number_result'),
  attributes: Type.Object({
    number: Type.String(),
    number_type: Type.Union([
      Type.Literal('container'),
      Type.Literal('bill_of_lading'),
      Type.Literal('booking'),
    ]),
    request_type: Type.Union([
      Type.Literal('container'),
      Type.Literal('bill_of_lading'),
      Type.Literal('booking_number'),
    ]),
    validation: Type.Object({
      is_valid: Nullable(Type.Boolean()),
      type: Type.Union([Type.Literal('container'), Type.Literal('shipment')]),
      check_digit_passed: Nullable(Type.Boolean()),
      parsed_number: Nullable(Type.String()),
      reason: Nullable(Type.String()),
    }),
    shipping_line: Type.Object({
      decision: Type.Union([
        Type.Literal('auto_select'),
        Type.Literal('needs_confirmation'),
        Type.Literal('no_prediction'),
      ]),
      selected: Nullable(CandidateSchema),
      candidates: Type.Array(CandidateSchema),
    }),
  }),
});
