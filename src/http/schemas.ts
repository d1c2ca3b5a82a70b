import { type TSchema, Type } from 'typebox';

// Request-side TypeBox building blocks (parameters, queries, error responses). The same schemas
// validate requests and, through @fastify/swagger, become the published OpenAPI document. Document
// shapes (resources, lists) are in src/jsonapi/schemas.ts.

export const ErrorObject = Type.Object({
  status: Type.String(),
  title: Type.String(),
  detail: Type.Optional(Type.String()),
  code: Type.Optional(Type.String()),
  source: Type.Optional(
    Type.Object({
      pointer: Type.Optional(Type.String()),
      parameter: Type.Optional(Type.String()),
      header: Type.Optional(Type.String()),
    }),
  ),
});
export const ErrorDocument = Type.Object(
  { errors: Type.Array(ErrorObject) },
  { description: 'JSON:API errors' },
);

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, ErrorDocument]));

export const IdParams = Type.Object({ id: Type.String() });

export const PageQuery = {
  'page[number]': Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Page number, from 1.' })),
  'page[size]': Type.Optional(
    Type.String({
      pattern: '^[0-9]+$',
      description: 'Page size (default 30); values above 100 are capped to 100.',
    }),
  ),
};

export const UpdatedAtQuery = {
  'filter[updated_at][start]': Type.Optional(
    Type.String({ description: 'Only records updated at or after (ISO 8601).' }),
  ),
  'filter[updated_at][end]': Type.Optional(
    Type.String({ description: 'Only records updated at or before (ISO 8601).' }),
  ),
};

/**
 * A query-string schema. Unknown parameters are ignored, as the reference service does (its
 * clients send parameters we may not know); known ones stay strictly validated.
 */
export const query = (props: Record<string, TSchema>) => Type.Object(props, { additionalProperties: true });
