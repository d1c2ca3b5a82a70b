import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { ApiError, notFound } from '../../errors.ts';
import { errorResponses } from '../../http/schemas.ts';
import { isUuid } from '../../util/uuid.ts';
import { storageKeyOf } from '../file-access.ts';
import { createBlob, tooLarge, uploadBlob } from '../service.ts';
import { downloadSignatureValid, signBlobId, signingKey, verifyBlobId } from '../signing.ts';
import { createStorage } from '../storage.ts';
import { origin } from './documents.ts';

// The routes that move bytes without an API key, each authorised by a signature instead:
// the direct-upload PUT (ActiveStorage style) and the signed download link.

const BlobBody = Type.Object({
  blob: Type.Object(
    {
      filename: Type.String({ minLength: 1, maxLength: 255 }),
      byte_size: Type.Integer({ minimum: 1 }),
      checksum: Type.String({ maxLength: 100, description: 'Base64 MD5 of the bytes.' }),
      content_type: Type.Optional(Type.String({ maxLength: 100 })),
      metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
});

const forbidden = (detail: string) => new ApiError(403, [{ detail, code: 'invalid_signature' }]);

export function uploadRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const cfg = ctx.config.documents;
  const storage = createStorage(ctx.config);
  return async (app) => {
    // Raw bytes of any declared type, up to the document limit (not the JSON body limit).
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: cfg.maxBytes }, (_req, body, done) =>
      done(null, body),
    );

    app.post(
      '/direct_uploads',
      {
        schema: {
          tags: ['Documents'],
          summary: 'Start a direct upload',
          description:
            'Declares a file (name, size, base64 MD5). PUT its bytes to direct_upload.url with direct_upload.headers (no API key), then POST /v2/documents with attached_document = signed_id.',
          body: BlobBody,
          response: {
            200: Type.Object({
              id: Type.String(),
              signed_id: Type.String(),
              filename: Type.String(),
              byte_size: Type.Integer(),
              checksum: Type.String(),
              content_type: Type.Union([Type.String(), Type.Null()]),
              direct_upload: Type.Object({
                url: Type.String(),
                headers: Type.Record(Type.String(), Type.String()),
              }),
            }),
            ...errorResponses(400, 401, 413, 415, 422, 429),
          },
        },
      },
      async (request) => {
        const b = request.body.blob;
        const id = await createBlob(db, request.accountId, b, cfg.maxBytes);
        const signedId = signBlobId(await signingKey(db, cfg.urlSecret), id);
        return {
          id,
          signed_id: signedId,
          filename: b.filename,
          byte_size: b.byte_size,
          checksum: b.checksum,
          content_type: b.content_type ?? null,
          direct_upload: {
            url: `${origin(ctx, request)}/v2/direct_uploads/${signedId}`,
            headers: {
              'Content-Type': b.content_type ?? 'application/octet-stream',
              'Content-MD5': b.checksum,
            },
          },
        };
      },
    );

    app.put(
      '/direct_uploads/:signed_id',
      {
        config: { auth: false },
        schema: { tags: ['Documents'], summary: 'Upload the bytes of a direct upload', hide: true },
      },
      async (request, reply) => {
        const { signed_id } = request.params as { signed_id: string };
        const blobId = verifyBlobId(await signingKey(db, cfg.urlSecret), signed_id);
        if (!blobId) throw forbidden('The upload URL is not valid.');
        const body = request.body;
        if (!Buffer.isBuffer(body))
          throw new ApiError(422, [{ detail: 'Send the file bytes as the body.', code: 'blank' }]);
        if (body.length > cfg.maxBytes) throw tooLarge(cfg.maxBytes);
        await uploadBlob(db, storage, blobId, body);
        return reply.code(204).send();
      },
    );

    app.get(
      '/document_files/:id',
      {
        config: { auth: false },
        schema: { tags: ['Documents'], summary: 'Download a document file (signed link)', hide: true },
      },
      async (request, reply) => {
        const { id } = request.params as { id: string };
        const q = request.query as { expires?: string; signature?: string };
        const file = isUuid(id) ? await storageKeyOf(db, id) : undefined;
        if (!file) throw notFound('No such document file.');
        const expires = Number(q.expires);
        const key = await signingKey(db, cfg.urlSecret);
        if (
          !q.signature ||
          !Number.isSafeInteger(expires) ||
          !downloadSignatureValid(key, id, file.storage_key, expires, q.signature)
        ) {
          throw forbidden('The download link is not valid.');
        }
        if (Date.now() > expires) throw forbidden('The download link has expired.');
        const bytes = await storage.get(file.storage_key);
        return reply
          .header('content-type', file.file_content_type)
          .header('content-disposition', `inline; filename="${file.file_name.replace(/["\\\r\n]/g, '_')}"`)
          .header('cache-control', 'private, no-store')
          .send(bytes);
      },
    );
  };
}
