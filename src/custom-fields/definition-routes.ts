import { Type } from 'typebox';
import { badParameter } from '../errors.ts';
import { parsePage } from '../http/jsonapi.ts';
import { routeModule } from '../http/route-module.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { pageLinks, selfLink } from '../jsonapi/resource.ts';
import { ListLinks, ListMeta } from '../jsonapi/schemas.ts';
import {
  createDefinition,
  createOption,
  definitionResources,
  editDefinition,
  editOption,
  getDefinition,
  getOption,
  listOptions,
  pageOfDefinitions,
  removeDefinition,
  removeOption,
} from './definitions.ts';
import {
  bodyOf,
  DefinitionCreateBody,
  DefinitionPatchBody,
  OptionCreateBody,
  OptionPatchBody,
} from './request-schemas.ts';
import { DefinitionSchema, OptionSchema, serializeOption } from './serializer.ts';
import { DATA_TYPES, type Definition, ENTITY_TYPES, type Option } from './types.ts';

const SelfLinks = Type.Object({ self: Type.String() });
const OneDef = Type.Object({ data: DefinitionSchema, links: SelfLinks });
const OneOption = Type.Object({ data: OptionSchema, links: SelfLinks });
const Empty = Type.Object({});
const DEF_TAGS = ['Custom Field Definitions'];
const OPT_TAGS = ['Custom Field Options'];
const OptionParams = Type.Object({ definition_id: Type.String(), option_id: Type.String() });
const DefinitionParams = Type.Object({ definition_id: Type.String() });

const ListQuery = query({
  ...PageQuery,
  'filter[entity_type]': Type.Optional(Type.String({ description: ENTITY_TYPES.join(', ') })),
  'filter[data_type]': Type.Optional(Type.String({ description: DATA_TYPES.join(', ') })),
  'filter[display_name]': Type.Optional(Type.String({ maxLength: 200, description: 'Prefix, any case.' })),
});

function oneOf(name: string, raw: string | undefined, allowed: readonly string[]) {
  if (raw === undefined) return undefined;
  if (!allowed.includes(raw)) throw badParameter(name, `${name} must be one of ${allowed.join(', ')}.`);
  return raw;
}

const defDoc = async (db: Parameters<typeof definitionResources>[0], accountId: string, d: Definition) => ({
  data: (await definitionResources(db, accountId, [d]))[0]!,
  links: selfLink(`/custom_field_definitions/${d.id}`),
});
const optionDoc = (o: Option) => ({
  data: serializeOption(o),
  links: selfLink(`/custom_field_definitions/${o.definition_id}/options/${o.id}`),
});

export const definitionRoutes = routeModule((app, db, ctx) => {
  app.get(
    '/custom_field_definitions',
    {
      schema: {
        tags: DEF_TAGS,
        summary: 'List custom field definitions',
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(DefinitionSchema), links: ListLinks, meta: ListMeta }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const qs = request.query as Record<string, string | undefined>;
      const page = parsePage(qs);
      const { rows, total } = await pageOfDefinitions(
        db,
        request.accountId,
        {
          entity_type: oneOf('filter[entity_type]', qs['filter[entity_type]'], ENTITY_TYPES),
          data_type: oneOf('filter[data_type]', qs['filter[data_type]'], DATA_TYPES),
          display_name: qs['filter[display_name]'] || undefined,
        },
        page,
      );
      return {
        data: await definitionResources(db, request.accountId, rows),
        links: pageLinks(ctx.baseUrl, '/custom_field_definitions', qs, page, total),
        meta: { size: page.size, total },
      };
    },
  );
  app.post(
    '/custom_field_definitions',
    {
      schema: {
        tags: DEF_TAGS,
        summary: 'Create a custom field definition',
        body: DefinitionCreateBody,
        response: { 201: OneDef, ...errorResponses(400, 401, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const a = bodyOf<Parameters<typeof createDefinition>[2]>(request.body).attributes;
      const def = await createDefinition(db, request.accountId, a);
      return reply.code(201).send(await defDoc(db, request.accountId, def));
    },
  );
  app.get(
    '/custom_field_definitions/:id',
    {
      schema: {
        tags: DEF_TAGS,
        summary: 'Get a custom field definition',
        params: IdParams,
        response: { 200: OneDef, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) =>
      defDoc(db, request.accountId, await getDefinition(db, request.accountId, request.params.id)),
  );
  app.patch(
    '/custom_field_definitions/:id',
    {
      schema: {
        tags: DEF_TAGS,
        summary: 'Update a custom field definition',
        description: 'entity_type, api_slug and data_type cannot change.',
        params: IdParams,
        body: DefinitionPatchBody,
        response: { 200: OneDef, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
      },
    },
    async (request) =>
      defDoc(
        db,
        request.accountId,
        await editDefinition(
          db,
          request.accountId,
          request.params.id,
          bodyOf<Parameters<typeof editDefinition>[3]>(request.body).attributes,
        ),
      ),
  );
  app.delete(
    '/custom_field_definitions/:id',
    {
      schema: {
        tags: DEF_TAGS,
        summary: 'Delete a custom field definition',
        description: 'Its options and every value of it go with it.',
        params: IdParams,
        response: { 200: Empty, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      await removeDefinition(db, request.accountId, request.params.id);
      return {};
    },
  );

  // ---- options ----
  app.get(
    '/custom_field_definitions/:definition_id/options',
    {
      schema: {
        tags: OPT_TAGS,
        summary: 'List custom field options',
        params: DefinitionParams,
        response: {
          200: Type.Object({ data: Type.Array(OptionSchema), links: ListLinks, meta: ListMeta }),
          ...errorResponses(401, 404, 429),
        },
      },
    },
    async (request) => {
      const { definition_id } = request.params;
      const options = await listOptions(db, request.accountId, definition_id);
      const page = { number: 1, size: Math.max(1, options.length) };
      return {
        data: options.map(serializeOption),
        links: pageLinks(
          ctx.baseUrl,
          `/custom_field_definitions/${definition_id}/options`,
          {},
          page,
          options.length,
        ),
        meta: { size: page.size, total: options.length },
      };
    },
  );
  app.post(
    '/custom_field_definitions/:definition_id/options',
    {
      schema: {
        tags: OPT_TAGS,
        summary: 'Create a custom field option',
        params: DefinitionParams,
        body: OptionCreateBody,
        response: { 201: OneOption, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          optionDoc(
            await createOption(
              db,
              request.accountId,
              request.params.definition_id,
              bodyOf<Parameters<typeof createOption>[3]>(request.body).attributes,
            ),
          ),
        ),
  );
  app.get(
    '/custom_field_definitions/:definition_id/options/:option_id',
    {
      schema: {
        tags: OPT_TAGS,
        summary: 'Get a custom field option',
        params: OptionParams,
        response: { 200: OneOption, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) =>
      optionDoc(
        await getOption(db, request.accountId, request.params.definition_id, request.params.option_id),
      ),
  );
  app.patch(
    '/custom_field_definitions/:definition_id/options/:option_id',
    {
      schema: {
        tags: OPT_TAGS,
        summary: 'Update a custom field option',
        description: 'The value of an option cannot change (values refer to it).',
        params: OptionParams,
        body: OptionPatchBody,
        response: { 200: OneOption, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
      },
    },
    async (request) =>
      optionDoc(
        await editOption(
          db,
          request.accountId,
          request.params.definition_id,
          request.params.option_id,
          bodyOf<Parameters<typeof editOption>[4]>(request.body).attributes,
        ),
      ),
  );
  app.delete(
    '/custom_field_definitions/:definition_id/options/:option_id',
    {
      schema: {
        tags: OPT_TAGS,
        summary: 'Delete a custom field option',
        description: 'An option still used by a value is a 422.',
        params: OptionParams,
        response: { 200: Empty, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      await removeOption(db, request.accountId, request.params.definition_id, request.params.option_id);
      return {};
    },
  );
});
