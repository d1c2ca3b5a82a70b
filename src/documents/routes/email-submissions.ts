import { Type } from 'typebox';
import type { AppContext } from '../../app-context.ts';
import { notFound } from '../../errors.ts';
import { parseInclude } from '../../http/jsonapi.ts';
import { listRequest, listResponse } from '../../http/list.ts';
import { routeModule } from '../../http/route-module.ts';
import { errorResponses, IdParams, PageQuery, query } from '../../http/schemas.ts';
import { Included, type Resource } from '../../jsonapi/resource.ts';
import { AnyResource } from '../../jsonapi/schemas.ts';
import { isUuid } from '../../util/uuid.ts';
import {
  type EmailSubmissionRow,
  emailSubmissionsByIds,
  listSubmissions,
  serializeSubmission,
} from '../email-submissions.ts';
import { documentsOfSubmissions } from '../queries.ts';
import { representationsByIds } from '../representations.ts';
import { serializeEmailDocument, serializeRepresentation } from '../serializer.ts';

const INCLUDES = ['account', 'user', 'documents', 'documents.last_document_representation'] as const;
const DEFAULT_INCLUDES = ['documents', 'documents.last_document_representation'];
const INCLUDE_DOC = Type.String({
  description: `Comma list of: ${INCLUDES.join(', ')} (default documents, documents.last_document_representation).`,
});
const Open = Type.Object({}, { additionalProperties: true });

async function includes(
  ctx: AppContext,
  accountId: string,
  rows: EmailSubmissionRow[],
  include: Set<string>,
): Promise<Resource[]> {
  const out = new Included();
  if (!include.has('documents') && !include.has('documents.last_document_representation')) return out.items;
  const docs = await documentsOfSubmissions(
    ctx.database.db,
    accountId,
    rows.map((r) => r.id),
  );
  if (include.has('documents')) for (const d of docs) out.add(serializeEmailDocument(d));
  if (include.has('documents.last_document_representation')) {
    const ids = docs.map((d) => d.last_representation_id).filter((x): x is string => !!x);
    for (const r of await representationsByIds(ctx.database.db, accountId, ids))
      out.add(serializeRepresentation(r));
  }
  return out.items;
}

export const emailSubmissionRoutes = routeModule((app, db, ctx) => {
  app.get(
    '/email_submissions',
    {
      schema: {
        tags: ['Email Submissions'],
        summary: 'List email submissions',
        querystring: query({ ...PageQuery, include: Type.Optional(INCLUDE_DOC) }),
        response: {
          200: Type.Object({
            data: Type.Array(Open),
            included: Type.Optional(Type.Array(AnyResource)),
            links: Open,
            meta: Open,
          }),
          ...errorResponses(400, 401, 429),
        },
      },
    },
    async (request) => {
      const { qs, page, include } = listRequest(request.query, INCLUDES, DEFAULT_INCLUDES);
      const { rows, total } = await listSubmissions(db, request.accountId, page);
      return listResponse(ctx.baseUrl, '/email_submissions', { qs, page }, total, {
        data: rows.map(serializeSubmission),
        included: await includes(ctx, request.accountId, rows, include),
      });
    },
  );

  app.get(
    '/email_submissions/:id',
    {
      schema: {
        tags: ['Email Submissions'],
        summary: 'Get an email submission',
        params: IdParams,
        querystring: query({ include: Type.Optional(INCLUDE_DOC) }),
        response: {
          200: Type.Object({ data: Open, included: Type.Optional(Type.Array(AnyResource)) }),
          ...errorResponses(400, 401, 404, 429),
        },
      },
    },
    async (request) => {
      const include = parseInclude(
        (request.query as { include?: string }).include,
        INCLUDES,
        DEFAULT_INCLUDES,
      );
      const [row] = isUuid(request.params.id)
        ? await emailSubmissionsByIds(db, request.accountId, [request.params.id])
        : [];
      if (!row) throw notFound("Couldn't find EmailSubmission");
      return {
        data: serializeSubmission(row),
        included: await includes(ctx, request.accountId, [row], include),
      };
    },
  );
});
