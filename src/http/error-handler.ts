import type { FastifyError, FastifyInstance } from 'fastify';
import { isConnectionError } from '../db/connection-errors.ts';
import { ApiError, catalogueError, databaseUnavailable, titleFor } from '../errors.ts';
import { validationError } from './validation.ts';

const JSONAPI = 'application/vnd.api+json';

/** Framework errors we translate (codes from Fastify's error catalogue). */
function fromFastify(err: FastifyError): ApiError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return catalogueError('malformed_json', 'The request body is not valid JSON.', {
        source: { pointer: '' },
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return catalogueError('body_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return catalogueError('unsupported_media_type', `Send the body as ${JSONAPI} or application/json.`, {
        source: { header: 'Content-Type' },
      });
    default:
      if (err.statusCode === 400 && err.code?.startsWith('FST_ERR_CTP')) {
        return catalogueError('bad_request', err.message);
      }
      return undefined;
  }
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let apiError: ApiError | undefined;
    if (err instanceof ApiError) apiError = err;
    else if (err.validation) apiError = validationError(err.validation, err.validationContext ?? 'body');
    else if (isConnectionError(err)) {
      request.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable');
      apiError = databaseUnavailable();
    } else apiError = fromFastify(err);
    if (!apiError) {
      if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
        apiError = new ApiError(err.statusCode, [{ detail: titleFor(err.statusCode), code: 'bad_request' }]);
      } else {
        // Log everything; tell the client nothing about internals.
        request.log.error({ err }, 'unhandled error');
        apiError = catalogueError(
          'internal_error',
          `Something went wrong. Quote request id ${request.id} when reporting it.`,
        );
      }
    }
    reply
      .code(apiError.status)
      .headers(apiError.headers)
      .type('application/json; charset=utf-8')
      .send({ errors: apiError.errors });
  });
}

/** Collects registered routes so an unknown method on a known path answers 405, not 404. */
export function registerNotFound(app: FastifyInstance): void {
  const routes: Array<{ re: RegExp; methods: Set<string> }> = [];
  app.addHook('onRoute', (route) => {
    const pattern = `^${route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let entry = routes.find((r) => r.re.source === pattern);
    if (!entry) {
      entry = { re: new RegExp(pattern), methods: new Set() };
      routes.push(entry);
    }
    for (const m of methods) entry.methods.add(m);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = new Set<string>();
    for (const r of routes) if (r.re.test(path)) for (const m of r.methods) allowed.add(m);
    if (allowed.size > 0) {
      const allow = [...allowed]
        .filter((m) => m !== 'HEAD')
        .sort()
        .join(', ');
      throw catalogueError(
        'method_not_allowed',
        `${request.method} is not allowed here. Allowed: ${allow}.`,
        {
          headers: { allow },
        },
      );
    }
    reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send({ errors: catalogueError('route_not_found', `No route ${request.method} ${path}.`).errors });
  });
}
