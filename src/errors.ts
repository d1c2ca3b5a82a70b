// The service's errors, neutral of HTTP so services and domain code can raise them: ApiError
// carries JSON:API error objects whose codes come from the catalogue (src/errors/catalogue.ts);
// the HTTP layer (src/http/error-handler.ts) renders them.
import { ERROR_CATALOGUE, type ErrorCode, titleFor } from './errors/catalogue.ts';

export { ERROR_CATALOGUE, type ErrorCode, errorsMarkdown, titleFor } from './errors/catalogue.ts';

export interface ErrorObject {
  status: string;
  source?: { pointer?: string; parameter?: string; header?: string };
  title: string;
  detail?: string;
  code?: ErrorCode;
}

export type ErrorInput = Omit<ErrorObject, 'status' | 'title'> & { title?: string };

export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];
  readonly headers: Record<string, string>;
  constructor(status: number, errors: ErrorInput[], headers = {}) {
    super(errors[0]?.detail ?? titleFor(status));
    this.status = status;
    this.errors = errors.map((e) => ({ status: String(status), title: e.title ?? titleFor(status), ...e }));
    this.headers = headers;
  }
}

/** An error whose status is its code's status in the catalogue. */
export function catalogueError(
  code: ErrorCode,
  detail: string,
  options: { source?: ErrorObject['source']; headers?: Record<string, string> } = {},
): ApiError {
  const error: ErrorInput = options.source ? { source: options.source, detail, code } : { detail, code };
  return new ApiError(ERROR_CATALOGUE[code].status, [error], options.headers);
}

export const notFound = (detail = 'The requested resource does not exist.') =>
  catalogueError('not_found', detail);

export const badParameter = (parameter: string, detail: string, code: ErrorCode = 'invalid_parameter') =>
  new ApiError(400, [{ source: { parameter }, detail, code }]);

export const invalidAttribute = (pointer: string, detail: string, code: ErrorCode = 'invalid') =>
  new ApiError(422, [{ source: { pointer }, detail, code }]);

export const unauthorized = (detail: string) => catalogueError('unauthorized', detail);

export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  catalogueError('rate_limited', detail, { headers: { 'retry-after': String(retryAfterSeconds) } });

/** The database cannot be reached (failover, restart): transient, so the client is told when to retry. */
export const databaseUnavailable = (retryAfterSeconds = 2) =>
  catalogueError('database_unavailable', 'The database is unavailable for a moment. Please retry shortly.', {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
