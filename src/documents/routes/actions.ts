import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { ApiError, notFound } from '../../errors.ts';
import { errorResponses, IdParams } from '../../http/schemas.ts';
import { findDocument, queueAction } from '../queries.ts';

// The asynchronous actions on a document: each queues work for the worker and answers 202.

const TAG = ['Documents'];
const Accepted = Type.Object({ status: Type.Literal('accepted') });

export function documentActionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const found = async (accountId: string, id: string) => {
    const d = await findDocument(db, accountId, id);
    if (!d) throw notFound("Couldn't find Document");
    return d;
  };
  return async (app) => {
    const action = (
      path: string,
      what: 'reextract' | 'reclassify' | 'relink',
      summary: string,
      description: string,
    ) =>
      app.post(
        `/documents/:id/${path}`,
        {
          schema: {
            tags: TAG,
            summary,
            description,
            params: IdParams,
            response: { 202: Accepted, ...errorResponses(401, 404, 429) },
          },
        },
        async (request, reply) => {
          await found(request.accountId, request.params.id);
          await queueAction(db, request.accountId, request.params.id, what);
          return reply.code(202).send({ status: 'accepted' as const });
        },
      );
    action(
      'reextract',
      'reextract',
      'Re-extract a document',
      'Reads the document again into a new representation (the last one) and sends document.extracted again.',
    );
    action(
      'reclassify',
      'reclassify',
      'Re-classify a document',
      'Classifies the document again; a changed type is extracted again.',
    );
    action(
      'relink',
      'relink',
      'Re-link a document',
      'Links the document again to the shipments and containers its numbers match.',
    );

    app.post(
      '/documents/:id/rotate',
      {
        schema: {
          tags: TAG,
          summary: 'Rotate a document',
          description:
            'Turns an image file clockwise by 90, 180 or 270 degrees and reads it again (OCR). PDFs are not rotatable.',
          params: IdParams,
          body: Type.Unsafe<unknown>({}),
          response: { 202: Accepted, ...errorResponses(400, 401, 404, 422, 429) },
        },
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        const d = await found(request.accountId, request.params.id);
        const b = request.body as
          | { degrees?: unknown; data?: { attributes?: { degrees?: unknown } } }
          | undefined;
        const degrees = b?.degrees ?? b?.data?.attributes?.degrees;
        if (degrees !== 90 && degrees !== 180 && degrees !== 270) {
          throw new ApiError(422, [
            {
              title: 'Invalid rotation',
              detail: 'degrees must be one of: 90, 180, 270',
              source: { pointer: '/degrees' },
              code: 'invalid_rotation',
            },
          ]);
        }
        if (!d.file_content_type.startsWith('image/')) {
          throw new ApiError(422, [
            {
              title: 'Not rotatable',
              detail: 'Only image documents (PNG, JPEG, TIFF) can be rotated.',
              code: 'not_rotatable',
            },
          ]);
        }
        await queueAction(db, request.accountId, d.id, 'rotate', degrees);
        return reply.code(202).send({ status: 'accepted' as const });
      },
    );
  };
}
