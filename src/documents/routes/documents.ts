import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { badParameter, invalidAttribute, notFound } from '../../errors.ts';
import { parseInclude } from '../../http/jsonapi.ts';
import { listRequest, listResponse, listRoute } from '../../http/list.ts';
import { errorResponses, IdParams, PageQuery, query } from '../../http/schemas.ts';
import { single } from '../../jsonapi/schemas.ts';
import { isUuid } from '../../util/uuid.ts';
import { DOCUMENT_TYPES, isDocumentType } from '../extract/classify.ts';
import { storageKeyOf } from '../file-access.ts';
import { DOCUMENT_INCLUDES, documentIncludes } from '../include.ts';
import { deleteDocument, findDocument, listDocuments, updateManual } from '../queries.ts';
import { DocumentSchema, serializeDocument } from '../serializer.ts';
import { createDocument, createFromBlob, tooLarge } from '../service.ts';
import { downloadQuery, signingKey, verifyBlobId } from '../signing.ts';
import { createStorage } from '../storage.ts';

// /v2/documents: thin HTTP over the document services.

const TAG = ['Documents'];
const INCLUDE_DOC = Type.String({ description: `Comma list of: ${DOCUMENT_INCLUDES.join(', ')}.` });
const SORTS = ['created_at', '-created_at', 'document_type', '-document_type', 'added_by', '-added_by'];

const ListQuery = query({
  ...PageQuery,
  include: Type.Optional(INCLUDE_DOC),
  sort: Type.Optional(Type.String({ description: `One of ${SORTS.join(', ')} (default -created_at).` })),
  'filter[filename]': Type.Optional(
    Type.String({ maxLength: 255, description: 'Substring of the file name or name.' }),
  ),
  'filter[document_types]': Type.Optional(
    Type.String({ maxLength: 500, description: 'One type code or a comma list.' }),
  ),
  'filter[reference]': Type.Optional(
    Type.String({ maxLength: 100, description: 'A B/L, booking or container number the document carries.' }),
  ),
});

const PatchBody = Type.Object({
  data: Type.Object({
    type: Type.Optional(Type.Literal('document')),
    id: Type.Optional(Type.String()),
    attributes: Type.Object(
      {
        document_type_manual: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
        extracted_data_manual: Type.Optional(
          Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
        ),
      },
      { additionalProperties: false },
    ),
  }),
});

const _Accepted = Type.Object({ status: Type.Literal('accepted') });
const Duplicate = Type.Object({
  errors: Type.Array(Type.Object({}, { additionalProperties: true })),
});

export function origin(ctx: AppContext, request: FastifyRequest): string {
  return ctx.baseUrl || `${request.protocol}://${request.host}`;
}

export function documentRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const cfg = ctx.config.documents;
  const storage = createStorage(ctx.config);
  const found = async (accountId: string, id: string) => {
    const d = await findDocument(db, accountId, id);
    if (!d) throw notFound("Couldn't find Document");
    return d;
  };

  return async (app) => {
    await app.register(multipart, { limits: { fileSize: cfg.maxBytes, files: 1, fields: 10 } });

    app.get(
      '/documents/types',
      {
        schema: {
          tags: TAG,
          summary: 'List document types',
          response: {
            200: Type.Object({
              document_types: Type.Array(Type.Object({ code: Type.String(), label: Type.String() })),
            }),
            ...errorResponses(401, 429),
          },
        },
      },
      async () => ({ document_types: DOCUMENT_TYPES.map((t) => ({ code: t.code, label: t.label })) }),
    );

    app.post(
      '/documents',
      {
        schema: {
          tags: TAG,
          summary: 'Upload a document',
          description:
            'JSON with `attached_document` (the signed id of a direct upload, POST /v2/direct_uploads), or multipart/form-data with a `file` part and an optional `name`. PDF, PNG, JPEG or TIFF, read from the bytes. Processing is asynchronous: watch extraction_status or subscribe to document.extracted.',
          body: Type.Unsafe<unknown>({}),
          response: {
            201: single(DocumentSchema),
            409: Duplicate,
            ...errorResponses(400, 401, 413, 415, 422, 429),
          },
        },
        validatorCompiler: () => () => true,
      },
      async (request, reply) => {
        let doc: Awaited<ReturnType<typeof createDocument>>;
        if (request.isMultipart()) {
          let bytes: Buffer | null = null;
          let fileName = '';
          let name: string | null = null;
          try {
            for await (const part of request.parts()) {
              if (part.type === 'file') {
                if (part.fieldname !== 'file' || bytes) {
                  await part.toBuffer();
                  continue;
                }
                fileName = part.filename;
                bytes = await part.toBuffer();
              } else if (part.fieldname === 'name' && typeof part.value === 'string')
                name = part.value.slice(0, 255);
            }
          } catch (err) {
            if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(cfg.maxBytes);
            throw err;
          }
          if (!bytes)
            throw invalidAttribute(
              '/data/attributes/file',
              'Send the file as a multipart part named "file".',
              'blank',
            );
          doc = await createDocument(
            db,
            storage,
            { accountId: request.accountId, bytes, fileName, name, source: 'api' },
            cfg.maxBytes,
          );
        } else {
          const body = request.body as {
            data?: { attributes?: { name?: unknown; attached_document?: unknown } };
          };
          const attrs = body?.data?.attributes;
          if (!attrs || typeof attrs.attached_document !== 'string') {
            throw invalidAttribute(
              '/data/attributes/attached_document',
              'attached_document is required (or send multipart/form-data with a file).',
              'blank',
            );
          }
          if (attrs.name !== undefined && (typeof attrs.name !== 'string' || attrs.name.length > 255)) {
            throw invalidAttribute(
              '/data/attributes/name',
              'name must be a string of at most 255 characters.',
            );
          }
          const key = await signingKey(db, cfg.urlSecret);
          const blobId = verifyBlobId(key, attrs.attached_document);
          doc = await createFromBlob(
            db,
            storage,
            request.accountId,
            blobId,
            (attrs.name as string) ?? null,
            cfg.maxBytes,
          );
        }
        return reply.code(201).send({ data: serializeDocument(doc) });
      },
    );

    app.get(
      '/documents',
      listRoute({
        tags: TAG,
        summary: 'List documents',
        querystring: ListQuery,
        item: DocumentSchema,
      }),
      async (request) => {
        const { qs, page, include } = listRequest(request.query, DOCUMENT_INCLUDES);
        const sortRaw = qs.sort ?? '-created_at';
        if (!SORTS.includes(sortRaw)) throw badParameter('sort', `sort must be one of ${SORTS.join(', ')}.`);
        const column = sortRaw.replace(/^-/, '') === 'document_type' ? 'document_type' : 'created_at';
        let types: string[] | undefined;
        if (qs['filter[document_types]'] !== undefined) {
          types = qs['filter[document_types]']
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
          const unknown = types.find((t) => !isDocumentType(t));
          if (unknown)
            throw badParameter(
              'filter[document_types]',
              `Unknown document type "${unknown}". GET /v2/documents/types lists them.`,
            );
        }
        const { rows, total } = await listDocuments(
          db,
          request.accountId,
          { types, filename: qs['filter[filename]'], reference: qs['filter[reference]'] },
          page,
          { column, desc: sortRaw.startsWith('-') },
        );
        return listResponse(ctx.baseUrl, '/documents', { qs, page }, total, {
          data: rows.map(serializeDocument),
          included: include.size ? await documentIncludes(db, request.accountId, rows, include) : undefined,
        });
      },
    );

    app.get(
      '/documents/:id',
      {
        schema: {
          tags: TAG,
          summary: 'Get a document',
          params: IdParams,
          querystring: query({ include: Type.Optional(INCLUDE_DOC) }),
          response: { 200: single(DocumentSchema), ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request) => {
        const include = parseInclude((request.query as { include?: string }).include, DOCUMENT_INCLUDES);
        const d = await found(request.accountId, request.params.id);
        return {
          data: serializeDocument(d),
          ...(include.size ? { included: await documentIncludes(db, request.accountId, [d], include) } : {}),
        };
      },
    );

    app.patch(
      '/documents/:id',
      {
        schema: {
          tags: TAG,
          summary: 'Edit a document',
          description:
            'Saves document_type_manual (a type code of GET /v2/documents/types) and extracted_data_manual (null clears it) beside the extracted values.',
          params: IdParams,
          body: PatchBody,
          response: { 200: single(DocumentSchema), ...errorResponses(400, 401, 404, 413, 415, 422, 429) },
        },
      },
      async (request) => {
        await found(request.accountId, request.params.id);
        const a = request.body.data.attributes;
        if (typeof a.document_type_manual === 'string' && !isDocumentType(a.document_type_manual)) {
          throw invalidAttribute(
            '/data/attributes/document_type_manual',
            `Unknown document type "${a.document_type_manual}". GET /v2/documents/types lists them.`,
            'invalid_document_type',
          );
        }
        await updateManual(db, request.accountId, request.params.id, a);
        return { data: serializeDocument((await findDocument(db, request.accountId, request.params.id))!) };
      },
    );

    app.delete(
      '/documents/:id',
      {
        schema: {
          tags: TAG,
          summary: 'Delete a document',
          description: 'Removes the record and its file; its download links stop working.',
          params: IdParams,
          response: { 204: Type.Null({ description: 'Deleted.' }), ...errorResponses(401, 404, 429) },
        },
      },
      async (request, reply) => {
        const key = isUuid(request.params.id)
          ? await deleteDocument(db, request.accountId, request.params.id)
          : null;
        if (!key) throw notFound("Couldn't find Document");
        await storage.delete(key).catch((err) => request.log.warn({ err }, 'document file not removed'));
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/documents/:id/download_url',
      {
        schema: {
          tags: TAG,
          summary: 'Get a document download URL',
          description: `A signed link to the file, valid for ${cfg.downloadUrlTtlMs} ms, that needs no API key.`,
          params: IdParams,
          response: {
            200: Type.Object({ download_url: Type.String() }),
            ...errorResponses(401, 404, 422, 429),
          },
        },
      },
      async (request) => {
        const d = await found(request.accountId, request.params.id);
        const key = await signingKey(db, cfg.urlSecret);
        const file = await storageKeyOf(db, d.id);
        if (!file) throw notFound("Couldn't find Document");
        const { storage_key } = file;
        const expires = Date.now() + cfg.downloadUrlTtlMs;
        return {
          download_url: `${origin(ctx, request)}/v2/document_files/${d.id}?${downloadQuery(key, d.id, storage_key, expires)}`,
        };
      },
    );
  };
}
