import { type TSchema, Type } from 'typebox';

// Shared TypeBox building blocks. The same schemas validate requests and, through
// @fastify/swagger, become the published OpenAPI document.

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Identifier = Type.Object({ id: Type.String(), type: Type.String() });
export const RelOne = Type.Object({ data: Nullable(Identifier) });
export const RelMany = Type.Object({ data: Type.Array(Identifier) });

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

/** Any resource in `included`: kept open because it mixes types. */
export const AnyResource = Type.Object(
  { id: Type.String(), type: Type.String(), attributes: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: true },
);

export const ListLinks = Type.Object({
  self: Type.String(),
  current: Type.String(),
  first: Type.String(),
  last: Type.String(),
  prev: Type.Optional(Type.String()),
  next: Type.Optional(Type.String()),
});
export const ListMeta = Type.Object({ size: Type.Integer(), total: Type.Integer() });

export function resourceSchema(
  type: string,
  attributes: TSchema,
  relationships: TSchema | null,
  description?: string,
): TSchema {
  const props: Record<string, TSchema> = {
    id: Type.String(),
    type: Type.Literal(type),
    attributes,
    links: Type.Object({ self: Type.String() }),
  };
  if (relationships) props.relationships = relationships;
  return Type.Object(props, description ? { description } : {});
}

export const single = (resource: TSchema) =>
  Type.Object({ data: resource, included: Type.Optional(Type.Array(AnyResource)) });

export const list = (resource: TSchema) =>
  Type.Object({
    data: Type.Array(resource),
    included: Type.Optional(Type.Array(AnyResource)),
    links: ListLinks,
    meta: ListMeta,
  });

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
