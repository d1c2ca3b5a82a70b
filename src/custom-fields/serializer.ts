import { Type } from 'typebox';
import { API_PREFIX, iso, many, one, type Resource, selfLink } from '../jsonapi/resource.ts';
import { Identifier, Nullable, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import type { Definition, Option } from './types.ts';
import { DATA_TYPES, ENTITY_TYPES } from './types.ts';
import type { ShownValue } from './values.ts';

const Lits = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
const AnyValue = Type.Unknown({ description: 'JSON value; its type follows the definition.' });
const Ref = (type: string) =>
  Type.Object({ data: Type.Object({ type: Type.Literal(type), id: Type.String() }) });

export const DefinitionSchema = resourceSchema(
  'custom_field_definition',
  Type.Object({
    entity_type: Lits(ENTITY_TYPES),
    api_slug: Type.String(),
    display_name: Type.String(),
    description: Nullable(Type.String()),
    data_type: Lits(DATA_TYPES),
    reference_type: Nullable(Type.String()),
    validation: Type.Unknown({ description: 'object or null' }),
    default_format: Nullable(Type.String()),
    default_value: AnyValue,
    template_id: Nullable(Type.String({ description: 'Definitions made from a template: none here.' })),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
  // The live service's relationships (docs/api-notes.md, "Live over document"): the fields (values)
  // are a list of their own, linked rather than listed.
  Type.Object({
    account: RelOne,
    fields: Type.Object({ links: Type.Object({ related: Type.String() }) }),
    options: Type.Object({ data: Type.Array(Identifier) }),
  }),
);

export const OptionSchema = resourceSchema(
  'custom_field_option',
  Type.Object({ label: Type.String(), value: Type.String(), position: Nullable(Type.Integer()) }),
  Type.Object({ definition: Ref('custom_field_definition') }),
);

export const ValueSchema = resourceSchema(
  'custom_field',
  Type.Object({
    api_slug: Type.String(),
    value: AnyValue,
    display_value: Nullable(Type.String()),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
  Type.Object({
    entity: Type.Object({
      data: Type.Object({ type: Lits(['shipment', 'container', 'tracking_request']), id: Type.String() }),
    }),
    definition: Ref('custom_field_definition'),
  }),
);

/** What a definition's relationships name: its account and its options' ids. */
export interface DefinitionContext {
  accountId: string;
  optionIds: string[];
}

export function serializeDefinition(d: Definition, ctx: DefinitionContext): Resource {
  return {
    id: d.id,
    type: 'custom_field_definition',
    attributes: {
      entity_type: d.entity_type,
      api_slug: d.api_slug,
      display_name: d.display_name,
      description: d.description,
      data_type: d.data_type,
      reference_type: d.reference_type,
      validation: d.validation ?? null,
      default_format: d.default_format,
      default_value: d.default_value ?? null,
      template_id: null,
      created_at: iso(d.created_at),
      updated_at: iso(d.updated_at),
    },
    relationships: {
      account: one('account', ctx.accountId),
      fields: { links: { related: `${API_PREFIX}/custom_fields?filter%5Bdefinition_id%5D=${d.id}` } },
      options: many('custom_field_option', ctx.optionIds),
    },
    links: selfLink(`/custom_field_definitions/${d.id}`),
  };
}

export function serializeOption(o: Option): Resource {
  return {
    id: o.id,
    type: 'custom_field_option',
    attributes: { label: o.label, value: o.value, position: o.position },
    relationships: { definition: { data: { type: 'custom_field_definition', id: o.definition_id } } },
    links: selfLink(`/custom_field_definitions/${o.definition_id}/options/${o.id}`),
  };
}

export function serializeValue(v: ShownValue): Resource {
  return {
    id: v.id,
    type: 'custom_field',
    attributes: {
      api_slug: v.api_slug,
      value: v.value ?? null,
      display_value: v.display_value,
      created_at: iso(v.created_at),
      updated_at: iso(v.updated_at),
    },
    relationships: {
      entity: { data: { type: v.entity_type, id: v.entity_id } },
      definition: { data: { type: 'custom_field_definition', id: v.definition_id } },
    },
    links: selfLink(`/custom_fields/${v.id}`),
  };
}
