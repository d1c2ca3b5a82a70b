// Every error `code` the service answers with, its HTTP status and what it means. Codes are keys of
// this object, so an error with a code not listed here does not type-check; docs/errors.md is
// generated from it (`npm run docs:errors`) and test/errors/catalogue.test.ts keeps the two equal.
// Titles are not listed: a JSON:API error's title is the reason phrase of its status (STATUS_TITLES).

/** The reason phrases used as JSON:API error titles. */
export const STATUS_TITLES: Record<number, string> = {
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

export interface CatalogueEntry {
  /** The status the code is answered with. */
  status: number;
  /**
   * Only for a code that is also answered with other statuses today (kept, not to change
   * behaviour): `'any 4xx'` when it follows whatever client-error status the framework reports.
   */
  alsoStatus?: 'any 4xx';
  /** One sentence: what happened and what the client can do. */
  meaning: string;
}

const ERRORS_BY_CODE = {
  // Request framing: the HTTP edge, before any route.
  bad_request: {
    status: 400,
    alsoStatus: 'any 4xx',
    meaning:
      'The request is not valid HTTP or could not be routed; a client error the framework reports without a more precise code keeps its status.',
  },
  request_timeout: {
    status: 408,
    meaning: 'The request line, headers and body did not arrive within REQUEST_TIMEOUT_MS.',
  },
  headers_too_large: { status: 431, meaning: 'The request line and headers together exceed 16 KiB.' },
  uri_too_long: { status: 414, meaning: 'The URL or one of its path segments is longer than allowed.' },
  invalid_encoding: {
    status: 400,
    meaning: 'The URL path or a query parameter is not valid percent-encoded UTF-8.',
  },
  route_not_found: { status: 404, meaning: 'No route matches the method and path.' },
  method_not_allowed: {
    status: 405,
    meaning: 'The path exists but not for this method; the Allow header lists the methods it takes.',
  },
  shutting_down: {
    status: 503,
    meaning: 'The server is shutting down; retry after the Retry-After seconds on another connection.',
  },
  // Request bodies.
  malformed_json: { status: 400, meaning: 'The request body is not valid JSON.' },
  malformed_csv: {
    status: 400,
    meaning:
      'The CSV body cannot be read (detail names the line), or its header row lacks request_number or names an unknown column.',
  },
  too_many_rows: { status: 413, meaning: 'The CSV import holds more rows than IMPORT_MAX_ROWS.' },
  invalid_utf8: { status: 400, meaning: 'The request body is not valid UTF-8.' },
  too_deep: { status: 400, meaning: 'The JSON body is nested deeper than the service accepts.' },
  body_too_large: { status: 413, meaning: 'The request body is larger than BODY_LIMIT_BYTES.' },
  unsupported_media_type: {
    status: 415,
    meaning: 'The body is not sent as application/vnd.api+json or application/json.',
  },
  // Authentication and limits.
  unauthorized: {
    status: 401,
    meaning: 'The API key (or the /metrics token) is missing, malformed, unknown or revoked.',
  },
  rate_limited: {
    status: 429,
    meaning: 'Too many requests (or failed authentications) in the window; retry after Retry-After seconds.',
  },
  // Parameters and attributes.
  invalid_parameter: {
    status: 400,
    meaning: 'A query or path parameter is unknown, malformed or out of range; source.parameter names it.',
  },
  invalid: { status: 422, meaning: 'An attribute is invalid; source.pointer names it.' },
  blank: { status: 422, meaning: 'A required attribute is missing or empty.' },
  invalid_type: { status: 422, meaning: 'An attribute has the wrong JSON type.' },
  invalid_value: { status: 422, meaning: 'An attribute is not one of the allowed values.' },
  too_long: { status: 422, meaning: 'A string or list in the body is longer than allowed.' },
  out_of_range: {
    status: 422,
    meaning:
      'A number in the body is not finite or is an integer beyond ±(2^53 - 1), which no column keeps exactly.',
  },
  not_unique: { status: 422, meaning: 'A list holds the same value more than once.' },
  unknown_attribute: { status: 422, meaning: 'The body has a member the resource does not define.' },
  invalid_characters: {
    status: 422,
    meaning: 'A string in the body holds NUL characters or unpaired UTF-16 surrogates.',
  },
  duplicate: {
    status: 422,
    meaning:
      'The same thing is given twice, or is already tracked (a tracking request for the same number and line).',
  },
  // Resources and their rules.
  invalid_include: {
    status: 400,
    meaning: 'The include parameter names a relationship path the endpoint does not offer.',
  },
  not_found: {
    status: 404,
    meaning: 'The requested resource does not exist (or belongs to another account).',
  },
  invalid_number: {
    status: 422,
    meaning: 'The text is not a plausible container, booking or bill of lading number.',
  },
  unknown_scac: { status: 422, meaning: 'The SCAC names no shipping line the service knows.' },
  unsupported_request_type: {
    status: 422,
    meaning: 'The shipping line cannot be tracked by this request type.',
  },
  tracking_stopped: {
    status: 422,
    meaning: 'Tracking of this container or shipment has stopped, so it cannot be refreshed.',
  },
  webhook_inactive: {
    status: 409,
    meaning: 'The webhook is inactive; activate it before redelivering notifications.',
  },
  unknown_event: { status: 422, meaning: 'The event name is not one of GET /v2/webhooks/events.' },
  invalid_email: { status: 422, meaning: 'A recipient of an alert rule is not an e-mail address.' },
  invalid_time_zone: {
    status: 422,
    meaning: 'The time zone is not an IANA time zone name (e.g. Europe/Berlin).',
  },
  limit_reached: {
    status: 422,
    meaning: 'The account already has as many alert rules as ALERT_MAX_RULES allows.',
  },
  invalid_header_name: { status: 422, meaning: 'A custom webhook header name is not an HTTP token.' },
  invalid_header_value: {
    status: 422,
    meaning: 'A custom webhook header value holds characters other than printable ASCII, spaces and tabs.',
  },
  reserved_header: { status: 422, meaning: 'A custom webhook header would override one the service sets.' },
  // Webhook URLs refused by the outbound address policy.
  invalid_url: { status: 422, meaning: 'The webhook URL is not an absolute URL with a host.' },
  insecure_scheme: { status: 422, meaning: 'The webhook URL is http:// while WEBHOOK_ALLOW_HTTP is off.' },
  unsupported_scheme: { status: 422, meaning: 'The webhook URL is neither http:// nor https://.' },
  credentials_in_url: { status: 422, meaning: 'The webhook URL carries user:password@.' },
  blocked_address: {
    status: 422,
    meaning:
      'The webhook host is a private, loopback or otherwise refused address not in WEBHOOK_ALLOWLIST, or a host name that resolves to one, or to none (the answer does not say which).',
  },
  // Server side.
  database_unavailable: {
    status: 503,
    meaning:
      'The database cannot be reached for a moment (restart, failover); retry after Retry-After seconds.',
  },
  internal_error: {
    status: 500,
    meaning: 'An unexpected failure; the detail quotes the request id to report.',
  },
  // Documents and uploads.
  file_too_large: { status: 413, meaning: 'The uploaded file is larger than DOCUMENT_MAX_BYTES.' },
  unsupported_file_type: {
    status: 422,
    meaning: 'The file is not a PDF, PNG, JPEG or TIFF (the type is read from its bytes, not its name).',
  },
  duplicate_document: {
    status: 409,
    meaning:
      'The account already has a document with byte-identical content; meta.existing_document_id names it.',
  },
  already_uploaded: { status: 409, meaning: 'The direct upload already received its bytes.' },
  byte_size_mismatch: { status: 422, meaning: 'The uploaded bytes are not as many as the blob declared.' },
  checksum_mismatch: {
    status: 422,
    meaning: "The uploaded bytes do not match the blob's declared MD5 checksum.",
  },
  invalid_signed_id: {
    status: 422,
    meaning: 'The attached_document is not the signed blob id of a completed direct upload.',
  },
  invalid_signature: {
    status: 403,
    meaning: 'The signed link or upload URL was tampered with or has expired.',
  },
  invalid_rotation: { status: 422, meaning: 'The rotation must be 90, 180 or 270 degrees.' },
  not_rotatable: { status: 422, meaning: 'Only image documents (PNG, JPEG, TIFF) can be rotated.' },
  invalid_document_type: {
    status: 422,
    meaning: 'The document_type_manual is not one of the types GET /v2/documents/types lists.',
  },
  // Custom fields and parties.
  taken: {
    status: 422,
    meaning:
      'The value must be unique in the account and is already used (an api_slug, an option value, a party name).',
  },
  invalid_format: {
    status: 422,
    meaning:
      'The value does not have the required format (an api_slug is lower-case letters, digits and underscores).',
  },
  invalid_data_type: {
    status: 422,
    meaning: 'The data_type is not one of the custom field types the reference lists.',
  },
  in_use: {
    status: 422,
    meaning: 'The option is still the value of a custom field; change those values first.',
  },
  invalid_entity: {
    status: 422,
    meaning: 'The custom field definition belongs to another entity type than the resource it is set on.',
  },
  unknown_reference: {
    status: 422,
    meaning:
      'The body refers to a record the account does not have (a party, a custom field definition, a shipment).',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERRORS_BY_CODE;

export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, CatalogueEntry>> = ERRORS_BY_CODE;

export function titleFor(status: number): string {
  return STATUS_TITLES[status] ?? 'Error';
}

/** docs/errors.md, generated from the catalogue. */
export function errorsMarkdown(): string {
  const rows = (Object.entries(ERROR_CATALOGUE) as Array<[ErrorCode, CatalogueEntry]>).map(([code, e]) => {
    const status = e.alsoStatus ? `${e.status} (or ${e.alsoStatus})` : String(e.status);
    return `| \`${code}\` | ${status} | ${titleFor(e.status)} | ${e.meaning} |`;
  });
  return [
    '# Error codes',
    '',
    '<!-- Generated from src/errors/catalogue.ts by `npm run docs:errors`; do not edit by hand. -->',
    '',
    'Every error body is a JSON:API `errors` list; each error has `status`, `title` (the reason phrase',
    'of the status), `detail` (a sentence for people), `code` (one of these, for programs) and, when one',
    'value is at fault, `source.pointer` (a body member) or `source.parameter` (a query or path parameter).',
    '',
    '| Code | Status | Title | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
