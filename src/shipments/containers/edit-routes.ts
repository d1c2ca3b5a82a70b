import { Type } from 'typebox';
import { routeModule } from '../../http/route-module.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { single } from '../../jsonapi/schemas.ts';
import { editContainer } from './edit-service.ts';
import { ContainerSchema, serializeContainer } from './serializer.ts';

// The reference document lists this as `PATCH /containers` without its `{id}` (a bug in the
// document; see docs/api-notes.md): it is served at /containers/{id}.

const Ref = Type.String({ maxLength: 100 });

const PatchBody = Type.Object(
  {
    data: Type.Object(
      {
        id: Type.Optional(Type.String()),
        type: Type.Optional(Type.Literal('container')),
        attributes: Type.Object(
          { ref_numbers: Type.Optional(Type.Array(Ref, { maxItems: 100 })) },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export const containerEditRoutes = routeModule((app, db) => {
  app.patch(
    '/containers/:id',
    {
      schema: {
        tags: ['Containers'],
        summary: 'Edit a container (ref_numbers)',
        description: 'Replaces the ref_numbers given; entries are trimmed and de-duplicated.',
        params: IdParams,
        body: PatchBody,
        response: { 200: single(ContainerSchema), ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
      },
    },
    async (request) => {
      const { row, events } = await editContainer(db, request.accountId, request.params.id, {
        ref_numbers: request.body.data.attributes.ref_numbers,
      });
      return { data: serializeContainer(row, events.get(row.id)) };
    },
  );
});
