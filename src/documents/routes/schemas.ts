import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { resourceSchema } from '../../jsonapi/schemas.ts';
import { DOCUMENT_SCHEMAS, findSchema, SCHEMA_ACTIVE_AT, SCHEMA_DATE } from '../extract/schemas.ts';

const SchemaResource = resourceSchema(
  'document_schema',
  Type.Object({}, { additionalProperties: true }),
  null,
);

export function documentSchemaRoutes(_ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/document_schemas/:id',
      {
        schema: {
          tags: ['Document Schemas'],
          summary: 'Get a document schema',
          description: `By full version id (${DOCUMENT_SCHEMAS[0]!.full_version}) or by bare type for the current version.`,
          params: Type.Object({ id: Type.String({ maxLength: 200 }) }),
          response: {
            200: Type.Object({ data: SchemaResource, links: Type.Object({ self: Type.String() }) }),
            ...errorResponses(401, 404, 429),
          },
        },
      },
      async (request) => {
        const s = findSchema(request.params.id);
        if (!s) throw notFound(`Couldn't find DocumentSchema with 'id'=${request.params.id}`);
        return {
          data: {
            id: s.full_version,
            type: 'document_schema' as const,
            attributes: {
              document_type: s.document_type,
              label: s.label,
              schema_version: SCHEMA_DATE,
              full_version: s.full_version,
              current: true,
              draft: false,
              active_at: SCHEMA_ACTIVE_AT,
              schema_format: 'json_schema',
              description: `Fields extracted from a ${s.label.toLowerCase()}; per-field confidences are in the representation's field_confidence.`,
              schema_payload: s.schema_payload,
              created_at: SCHEMA_ACTIVE_AT,
              updated_at: SCHEMA_ACTIVE_AT,
            },
            links: { self: `/v2/document_schemas/${s.full_version}` },
          },
          links: { self: `/v2/document_schemas/${request.params.id}` },
        };
      },
    );
  };
}
