import { type TProperties, type TSchema, Type } from 'typebox';

// TypeBox schemas of JSON:API bodies: what every resource and list looks like. The same schemas
// become the published OpenAPI document (through the route schemas); serializers and webhook payload
// rendering use them too, so they live below HTTP.

export const Uuid = Type.String({ format: 'uuid' });
export const DateTime = Type.String({ format: 'date-time' });
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Identifier = Type.Object({ id: Type.String(), type: Type.String() });
export const RelOne = Type.Object({ data: Nullable(Identifier) });
export const RelMany = Type.Object({ data: Type.Array(Identifier) });

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
  /** False: a resource with no address of its own (a change), so no links.self. */
  selfLinks = true,
): TSchema {
  const props: Record<string, TSchema> = {
    id: Type.String(),
    type: Type.Literal(type),
    attributes,
    ...(selfLinks ? { links: Type.Object({ self: Type.String() }) } : {}),
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

// Request bodies `{ data: { type?, attributes } }`, closed at every level: an unknown member is a 400.
const closed = { additionalProperties: false } as const;

/** The body that creates a resource of `type`. */
export const createBody = <T extends string, A extends TProperties>(type: T, attributes: A) =>
  Type.Object(
    {
      data: Type.Object(
        { type: Type.Optional(Type.Literal(type)), attributes: Type.Object(attributes, closed) },
        closed,
      ),
    },
    closed,
  );

/** The body that edits a resource of `type` (its id may be repeated in it). */
export const patchBody = <T extends string, A extends TProperties>(type: T, attributes: A) =>
  Type.Object(
    {
      data: Type.Object(
        {
          type: Type.Optional(Type.Literal(type)),
          id: Type.Optional(Type.String()),
          attributes: Type.Object(attributes, closed),
        },
        closed,
      ),
    },
    closed,
  );
