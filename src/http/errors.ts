// One error catalogue. Services throw ApiError; the error handler renders JSON:API errors.

export interface ErrorObject {
  status: string;
  source?: { pointer?: string; parameter?: string; header?: string };
  title: string;
  detail?: string;
  code?: string;
}

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function titleFor(status: number): string {
  return TITLES[status] ?? 'Error';
}

export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    errors: Array<Omit<ErrorObject, 'status' | 'title'> & { title?: string }>,
    headers = {},
  ) {
    super(errors[0]?.detail ?? titleFor(status));
    this.status = status;
    this.errors = errors.map((e) => ({ status: String(status), title: e.title ?? titleFor(status), ...e }));
    this.headers = headers;
  }
}

export const notFound = (detail = 'The requested resource does not exist.') =>
  new ApiError(404, [{ detail, code: 'not_found' }]);

export const badParameter = (parameter: string, detail: string, code = 'invalid_parameter') =>
  new ApiError(400, [{ source: { parameter }, detail, code }]);

export const invalidAttribute = (pointer: string, detail: string, code = 'invalid') =>
  new ApiError(422, [{ source: { pointer }, detail, code }]);

export const unauthorized = (detail: string) => new ApiError(401, [{ detail, code: 'unauthorized' }]);

export const tooManyRequests = (detail: string, retryAfterSeconds: number) =>
  new ApiError(429, [{ detail, code: 'rate_limited' }], { 'retry-after': String(retryAfterSeconds) });

/** The database cannot be reached (failover, restart): transient, so the client is told when to retry. */
export const databaseUnavailable = (retryAfterSeconds = 2) =>
  new ApiError(
    503,
    [
      {
        detail: 'The database is unavailable for a moment. Please retry shortly.',
        code: 'database_unavailable',
      },
    ],
    { 'retry-after': String(retryAfterSeconds) },
  );
