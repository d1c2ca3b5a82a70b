import { type TSchema, Type } from 'typebox';
import { Nullable } from '../jsonapi/schemas.ts';
import { DATA_TYPES, ENTITY_TYPES } from './types.ts';

// Request bodies of the custom field endpoints, as the reference document gives them. Strict
// members; the value itself is any JSON (its definition decides what fits).

const Lits = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const Text = (max: number) => Type.String({ maxLength: max });

const closed = (props: Record<string, TSchema>) => Type.Object(props, { additionalProperties: false });

const envelope = (type: string, attributes: TSchema, extra: Record<string, TSchema> = {}) =>
  closed({
    data: closed({
      id: Type.Optional(Type.String()),
      type: Type.Optional(Type.Literal(type)),
      attributes,
      ...extra,
    }),
  });

const Validation = Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown())));
const Value = Type.Unknown({ description: 'string, number, boolean, array of strings, object or null' });

export const DefinitionCreateBody = envelope(
  'custom_field_definition',
  closed({
    // The document's request enum omits TrackingRequest although its resource enum has it.
    entity_type: Lits(ENTITY_TYPES),
    api_slug: Text(100),
    display_name: Text(200),
    description: Type.Optional(Nullable(Text(2000))),
    data_type: Lits(DATA_TYPES),
    reference_type: Type.Optional(Nullable(Text(100))),
    validation: Validation,
    default_format: Type.Optional(Nullable(Text(100))),
    default_value: Type.Optional(Value),
  }),
);

export const DefinitionPatchBody = envelope(
  'custom_field_definition',
  closed({
    display_name: Type.Optional(Text(200)),
    description: Type.Optional(Nullable(Text(2000))),
    validation: Validation,
    default_format: Type.Optional(Nullable(Text(100))),
    default_value: Type.Optional(Value),
  }),
);

const Position = Type.Optional(Nullable(Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 })));

export const OptionCreateBody = envelope(
  'custom_field_option',
  closed({ label: Text(200), value: Text(200), position: Position }),
);

export const OptionPatchBody = envelope(
  'custom_field_option',
  closed({ label: Type.Optional(Text(200)), position: Position }),
);

export const ValueCreateBody = envelope('custom_field', closed({ api_slug: Text(100), value: Value }), {
  relationships: closed({
    entity: closed({
      data: closed({ type: Lits(['shipment', 'container', 'tracking_request']), id: Text(100) }),
    }),
  }),
});

export const NestedValueCreateBody = envelope('custom_field', closed({ api_slug: Text(100), value: Value }));

export const ValuePatchBody = envelope('custom_field', closed({ value: Value }));

/** The attributes (and relationships) of a body the schema above has already validated. */
export function bodyOf<A, R = undefined>(body: unknown): { attributes: A; relationships: R } {
  return (body as { data: { attributes: A; relationships: R } }).data;
}

const InitialEntry = closed({
  api_slug: Text(100),
  value: Value,
  number: Type.Optional(Type.String({ maxLength: 20, description: 'Only the container of this number.' })),
});

/** `initial_custom_fields` of a tracking request create. */
export const InitialCustomFieldsSchema = closed({
  shipment: Type.Optional(Type.Array(InitialEntry, { maxItems: 100 })),
  containers: Type.Optional(Type.Array(InitialEntry, { maxItems: 1000 })),
});
