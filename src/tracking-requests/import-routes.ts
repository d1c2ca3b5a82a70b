import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaValidationError } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { catalogueError } from '../errors.ts';
import { ErrorObject, errorResponses } from '../http/schemas.ts';
import { validationError } from '../http/validation.ts';
import { IMPORT_COLUMNS, importRows, parseImport } from './import.ts';
import { batchedTrackingRequestInsert } from './queries.ts';
import { CreateBody } from './schemas.ts';
import { serializeTrackingRequest, TrackingRequestSchema } from './serializer.ts';

// POST /v2/tracking_requests/import: a CSV of numbers in, one result per row out. Its own plugin,
// so the text/csv parser (and its larger body limit, IMPORT_MAX_BYTES) applies to this route only.

const RowResult = Type.Object({
  line: Type.Integer({ description: "The row's line in the file; the header is line 1." }),
  status: Type.Union([Type.Literal('created'), Type.Literal('failed')]),
  id: Type.Optional(Type.String({ description: 'The tracking request created.' })),
  errors: Type.Optional(Type.Array(ErrorObject)),
});

/**
 * A row's body against the create route's schema: the same errors POST /tracking_requests answers.
 * TypeBox's value checker (~300 modules) loads with the first import, not with the service.
 */
async function createBodyCheck(): Promise<(body: unknown) => void> {
  const { Value } = await import('typebox/value');
  return (body) => {
    const errors = [...Value.Errors(CreateBody, body)];
    if (errors.length > 0) throw validationError(errors as unknown as FastifySchemaValidationError[], 'body');
  };
}

export function trackingRequestImportRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  const insert = batchedTrackingRequestInsert(db);
  const limits = ctx.config.importLimits;
  return async (app) => {
    app.addContentTypeParser('text/csv', { parseAs: 'string', bodyLimit: limits.bytes }, (_req, body, done) =>
      done(null, body),
    );
    app.post(
      '/tracking_requests/import',
      {
        config: { bucket: 'create' },
        schema: {
          tags: ['Tracking Requests'],
          summary: 'Import tracking requests from a CSV',
          description: `Body: text/csv with a header row naming any of ${IMPORT_COLUMNS.join(', ')} (only request_number is required; ref_numbers and tags hold several values separated by ";"). A missing scac is detected by the service, a missing request_type is container for an ISO 6346 number and bill_of_lading otherwise. Each row is created as POST /v2/tracking_requests would create it; a bad row is reported in meta.results with the errors that create would answer and does not stop the others. At most IMPORT_MAX_ROWS rows and IMPORT_MAX_BYTES bytes.`,
          response: {
            200: Type.Object({
              data: Type.Array(TrackingRequestSchema),
              meta: Type.Object({
                rows: Type.Integer(),
                created: Type.Integer(),
                failed: Type.Integer(),
                results: Type.Array(RowResult),
              }),
            }),
            ...errorResponses(400, 401, 413, 415, 429),
          },
        },
      },
      async (request) => {
        if (typeof request.body !== 'string')
          throw catalogueError('unsupported_media_type', 'Send the spreadsheet as text/csv.');
        const rows = parseImport(request.body, limits.rows);
        const results = await importRows(db, insert, request.accountId, rows, await createBodyCheck());
        const created = results.flatMap((r) => ('created' in r ? [serializeTrackingRequest(r.created)] : []));
        if (created.length > 0) ctx.notifyWork?.('tracking_request');
        return {
          data: created,
          meta: {
            rows: results.length,
            created: created.length,
            failed: results.length - created.length,
            results: results.map((r) =>
              'created' in r
                ? { line: r.line, status: 'created' as const, id: r.created.id }
                : { line: r.line, status: 'failed' as const, errors: r.errors },
            ),
          },
        };
      },
    );
  };
}
