import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../http/errors.ts';
import { errorResponses } from '../http/schemas.ts';
import { Nullable } from '../jsonapi/schemas.ts';
import { allShippingLines } from '../reference/data.ts';
import { uuidV5 } from '../util/uuid.ts';
import { inferNumber } from './infer.ts';

// POST /tracking_requests/infer_number: the body is `{ "number": "..." }` as in openapi.json;
// the JSON:API form `{ "data": { "attributes": { "number": "..." } } }` is accepted too.

const Body = Type.Object(
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

export const inferRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/tracking_requests/infer_number',
    {
      config: { bucket: 'infer' },
      schema: {
        tags: ['Tracking Requests'],
        summary: 'Infer the number type and shipping line of a tracking number',
        description:
          "Container numbers are checked against ISO 6346 (check digit) and their owner prefix; bill of lading numbers against the lines' BL prefixes and SCACs. `request_type` is the value to use when creating the tracking request.",
        body: Body,
        response: {
          200: Type.Object({ data: InferenceSchema }),
          ...errorResponses(400, 401, 413, 415, 422, 429),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const jsonApi = body.number === undefined && body.data !== undefined;
      const pointer = jsonApi ? '/data/attributes/number' : '/number';
      const raw = body.number ?? body.data?.attributes.number;
      if (raw === undefined) {
        throw new ApiError(422, [
          { source: { pointer: '/number' }, detail: 'number is required.', code: 'blank' },
        ]);
      }
      const outcome = inferNumber(raw, allShippingLines());
      if (!outcome.ok)
        throw new ApiError(422, [{ source: { pointer }, detail: outcome.detail, code: outcome.code }]);
      return {
        data: {
          id: uuidV5(`infer_number:${outcome.value.number}`),
          type: 'infer_number_result' as const,
          attributes: outcome.value,
        },
      };
    },
  );
};
