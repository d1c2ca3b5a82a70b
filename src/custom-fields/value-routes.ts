import { Type } from 'typebox';
import { badParameter } from '../errors.ts';
import { parsePage } from '../http/jsonapi.ts';
import { routeModule } from '../http/route-module.ts';
import { errorResponses, IdParams, PageQuery, query } from '../http/schemas.ts';
import { pageLinks, selfLink } from '../jsonapi/resource.ts';
import { ListLinks, ListMeta } from '../jsonapi/schemas.ts';
import { isUuid } from '../util/uuid.ts';
import { bodyOf, NestedValueCreateBody, ValueCreateBody, ValuePatchBody } from './request-schemas.ts';
import { serializeValue, ValueSchema } from './serializer.ts';
import { ENTITY_OF, ENTITY_TYPES, type EntityType, RESOURCE_TYPE, type ResourceType } from './types.ts';
import {
  createValue,
  createValueOfEntity,
  editValue,
  editValueOfEntity,
  getValue,
  pageOfValues,
  removeValue,
  removeValueOfEntity,
  type ShownValue,
  valuesOfEntity,
} from './values.ts';

const OneValue = Type.Object({ data: ValueSchema, links: Type.Object({ self: Type.String() }) });
const ListOfValues = Type.Object({ data: Type.Array(ValueSchema), links: ListLinks, meta: ListMeta });
const TAGS = ['Custom Fields'];
const valueDoc = (v: ShownValue) => ({ data: serializeValue(v), links: selfLink(`/custom_fields/${v.id}`) });
type Qs = Record<string, string | undefined>;

/** filter[entity_type] takes the definition form (Shipment) or the resource form (shipment). */
function entityTypeFilter(raw: string | undefined): ResourceType | undefined {
  if (raw === undefined) return undefined;
  if ((ENTITY_TYPES as readonly string[]).includes(raw)) return RESOURCE_TYPE[raw as EntityType];
  if (raw in ENTITY_OF) return raw as ResourceType;
  throw badParameter('filter[entity_type]', `filter[entity_type] must be one of ${ENTITY_TYPES.join(', ')}.`);
}

function uuidFilter(qs: Qs, name: string): string | undefined {
  const v = qs[name];
  if (v !== undefined && !isUuid(v)) throw badParameter(name, `${name} must be a UUID.`);
  return v;
}

/** The nested paths: /{shipments|containers|tracking_requests}/{id}/custom_fields[/{api_slug}]. */
const NESTED: Array<{ path: string; param: string; type: ResourceType; tag: string }> = [
  { path: 'shipments', param: 'shipment_id', type: 'shipment', tag: 'Shipments' },
  { path: 'containers', param: 'container_id', type: 'container', tag: 'Containers' },
  {
    path: 'tracking_requests',
    param: 'tracking_request_id',
    type: 'tracking_request',
    tag: 'Tracking Requests',
  },
];

export const valueRoutes = routeModule((app, db, ctx) => {
  app.get(
    '/custom_fields',
    {
      schema: {
        tags: TAGS,
        summary: 'List custom fields',
        querystring: query({
          ...PageQuery,
          'filter[entity_type]': Type.Optional(Type.String({ description: ENTITY_TYPES.join(', ') })),
          'filter[entity_id]': Type.Optional(Type.String()),
          'filter[definition_id]': Type.Optional(Type.String()),
        }),
        response: { 200: ListOfValues, ...errorResponses(400, 401, 429) },
      },
    },
    async (request) => {
      const qs = request.query as Qs;
      const page = parsePage(qs);
      const { rows, total } = await pageOfValues(
        db,
        request.accountId,
        {
          entity_type: entityTypeFilter(qs['filter[entity_type]']),
          entity_id: uuidFilter(qs, 'filter[entity_id]'),
          definition_id: uuidFilter(qs, 'filter[definition_id]'),
        },
        page,
      );
      return {
        data: rows.map(serializeValue),
        links: pageLinks(ctx.baseUrl, '/custom_fields', qs, page, total),
        meta: { size: page.size, total },
      };
    },
  );
  app.post(
    '/custom_fields',
    {
      schema: {
        tags: TAGS,
        summary: 'Create a custom field',
        body: ValueCreateBody,
        response: { 201: OneValue, ...errorResponses(400, 401, 413, 415, 422, 429) },
      },
    },
    async (request, reply) => {
      const body = bodyOf<
        { api_slug: string; value: unknown },
        { entity: { data: { type: ResourceType; id: string } } }
      >(request.body);
      const v = await createValue(db, request.accountId, {
        ...body.attributes,
        entity: body.relationships.entity.data,
      });
      return reply.code(201).send(valueDoc(v));
    },
  );
  app.get(
    '/custom_fields/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Get a custom field',
        params: IdParams,
        response: { 200: OneValue, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => valueDoc(await getValue(db, request.accountId, request.params.id)),
  );
  app.patch(
    '/custom_fields/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Update a custom field',
        params: IdParams,
        body: ValuePatchBody,
        response: { 200: OneValue, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
      },
    },
    async (request) =>
      valueDoc(
        await editValue(
          db,
          request.accountId,
          request.params.id,
          bodyOf<{ value: unknown }>(request.body).attributes.value,
        ),
      ),
  );
  app.delete(
    '/custom_fields/:id',
    {
      schema: {
        tags: TAGS,
        summary: 'Delete a custom field',
        params: IdParams,
        response: { 200: Type.Object({}), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      await removeValue(db, request.accountId, request.params.id);
      return {};
    },
  );

  for (const n of NESTED) {
    const Params = Type.Object({ [n.param]: Type.String() });
    const SlugParams = Type.Object({ [n.param]: Type.String(), api_slug: Type.String({ maxLength: 100 }) });
    const base = `/${n.path}/:${n.param}/custom_fields`;
    const idOf = (p: unknown) => (p as Record<string, string>)[n.param]!;
    const slugOf = (p: unknown) => (p as { api_slug: string }).api_slug;
    app.get(
      base,
      {
        schema: {
          tags: [n.tag, ...TAGS],
          summary: `List the custom fields of a ${n.type}`,
          params: Params,
          querystring: query({ ...PageQuery }),
          response: { 200: ListOfValues, ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const qs = request.query as Qs;
        const page = parsePage(qs);
        const id = idOf(request.params);
        const { rows, total } = await valuesOfEntity(db, request.accountId, n.type, id, page);
        return {
          data: rows.map(serializeValue),
          links: pageLinks(ctx.baseUrl, `/${n.path}/${id}/custom_fields`, qs, page, total),
          meta: { size: page.size, total },
        };
      },
    );
    app.post(
      base,
      {
        schema: {
          tags: [n.tag, ...TAGS],
          summary: `Create a custom field of a ${n.type}`,
          params: Params,
          body: NestedValueCreateBody,
          response: { 201: OneValue, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request, reply) => {
        const a = bodyOf<{ api_slug: string; value: unknown }>(request.body).attributes;
        const v = await createValueOfEntity(db, request.accountId, n.type, idOf(request.params), a);
        return reply.code(201).send(valueDoc(v));
      },
    );
    app.patch(
      `${base}/:api_slug`,
      {
        schema: {
          tags: [n.tag, ...TAGS],
          summary: `Update a custom field of a ${n.type}`,
          params: SlugParams,
          body: ValuePatchBody,
          response: { 200: OneValue, ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request) => {
        const value = bodyOf<{ value: unknown }>(request.body).attributes.value;
        return valueDoc(
          await editValueOfEntity(
            db,
            request.accountId,
            n.type,
            idOf(request.params),
            slugOf(request.params),
            value,
          ),
        );
      },
    );
    app.delete(
      `${base}/:api_slug`,
      {
        schema: {
          tags: [n.tag, ...TAGS],
          summary: `Delete a custom field of a ${n.type}`,
          params: SlugParams,
          response: { 204: Type.Null({ description: 'No Content' }), ...errorResponses(401, 404, 429) },
        },
      },
      async (request, reply) => {
        await removeValueOfEntity(
          db,
          request.accountId,
          n.type,
          idOf(request.params),
          slugOf(request.params),
        );
        return reply.code(204).send(null);
      },
    );
  }
});
