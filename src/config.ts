import ipaddr from 'ipaddr.js';
import { type CarrierConfigEntry, CarrierConfigError, loadCarriersConfigFile } from './carriers/config.ts';
import { parseAllowlist } from './config-allowlist.ts';
import { dirProblem, parseScheduleConfig, readers } from './config-readers.ts';
import { parseTrustProxy, type TrustProxy } from './util/trust-proxy.ts';

// All configuration comes from environment variables, validated once at start. Each entry
// documents itself; README's configuration table is generated from the same list (`npm run cli -- config`).

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Loopback port of the embedded database's socket (0 = any free port). */
  embeddedDbPort: number;
  /** How long a CLI waits for an embedded database another process holds. */
  embeddedLockWaitMs: number;
  dbPoolSize: number;
  logLevel: string;
  publicBaseUrl: string | null;
  bodyLimitBytes: number;
  /** Time for a request's headers and body to arrive (408 or close after). */
  requestTimeoutMs: number;
  /** Fastify's trustProxy: which proxies' X-Forwarded-For names the client address. */
  trustProxy: TrustProxy;
  rateLimits: {
    create: number;
    default: number;
    infer: number;
    refresh: number;
    windowSeconds: number;
    batchMax: number;
    /** Failed authentications per client address per window, per API process. */
    authFailures: number;
  };
  /** In-process cache of GET responses and API keys, kept fresh by the database change feed. */
  cache: { responseMaxBytes: number; ttlMs: number };
  carriersConfig: string | null;
  /** The validated contents of CARRIERS_CONFIG (empty when unset). */
  carriers: CarrierConfigEntry[];
  role: 'api' | 'worker' | 'all';
  /** API processes sharing the port (API_PROCESSES / --processes). */
  apiProcesses: number;
  /** Where a worker beside forked API processes serves /metrics and /healthz. */
  metricsPort: number | null;
  worker: {
    pollIntervalMs: number;
    leaseMs: number;
    concurrency: number;
    retryBaseMs: number;
    retryMax: number;
    awaitingManifestIntervalMs: number;
    awaitingManifestMaxMs: number;
    refreshIntervalMs: number;
    refreshNearArrivalMs: number;
    arrivalWindowMs: number;
    fullOutWindowMs: number;
    noUpdatesWindowMs: number;
  };
  webhooks: {
    signatureHeader: string;
    allowHttp: boolean;
    allowlist: string[];
    sourceIps: string[];
    retryScheduleMs: number[];
    connectTimeoutMs: number;
    totalTimeoutMs: number;
    concurrency: number;
    perEndpointConcurrency: number;
    deactivateAfterMs: number;
    deactivateMinSpanMs: number;
    secretRotationGraceMs: number;
  };
  metrics: { mode: 'off' | 'open' | 'token'; token: string | null };
  /** The API key `npm run mcp` (MCP over stdio) acts with. */
  mcpApiKey: string | null;
  documents: {
    maxBytes: number;
    downloadUrlTtlMs: number;
    autoTrack: boolean;
    storage: 'fs' | 's3';
    /** Where files go with storage fs (default <DATA_DIR>/documents). */
    storageDir: string;
    /** Signs download links and direct-upload ids; null: a secret kept in the database. */
    urlSecret: string | null;
    s3: {
      endpoint: string | null;
      region: string;
      bucket: string | null;
      accessKeyId: string | null;
      secretAccessKey: string | null;
    };
    ocr: boolean;
    concurrency: number;
    retryBaseMs: number;
    retryMax: number;
  };
  mail: { smtpPort: number | null; smtpHost: string; inboundDomain: string; maxBytes: number };
}

type Env = Record<string, string | undefined>;

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

export interface Setting {
  name: string;
  default: string;
  description: string;
}

/** Every variable the service reads, with its default and meaning (the README table). */
export const SETTINGS: Setting[] = [
  { name: 'PORT', default: '3000', description: 'HTTP port of the API.' },
  { name: 'HOST', default: '0.0.0.0', description: 'Address the API listens on.' },
  {
    name: 'DATA_DIR',
    default: './data',
    description: 'Where embedded PGlite keeps its files (used when DATABASE_URL is unset).',
  },
  {
    name: 'DATABASE_URL',
    default: '(unset)',
    description: 'postgres://… URL of a PostgreSQL server; unset means embedded PGlite.',
  },
  { name: 'DB_POOL_SIZE', default: '10', description: 'Connections per process to PostgreSQL.' },
  {
    name: 'EMBEDDED_DB_PORT',
    default: '0',
    description:
      'Loopback port on which the server serves its embedded database to the CLI and psql (`npm run cli -- db url`); 0 = any free port, recorded in DATA_DIR.',
  },
  {
    name: 'EMBEDDED_LOCK_WAIT_MS',
    default: '60000',
    description:
      'How long a CLI command (or a starting server) waits for the embedded database while a CLI command holds it, or the server is still starting.',
  },
  {
    name: 'LOG_LEVEL',
    default: 'info',
    description: 'pino level: fatal, error, warn, info, debug, trace, silent.',
  },
  {
    name: 'PUBLIC_BASE_URL',
    default: '(unset)',
    description:
      'Absolute origin used in pagination links, e.g. https://track.example.com. Unset: links are paths.',
  },
  {
    name: 'BODY_LIMIT_BYTES',
    default: '102400',
    description: 'Largest accepted request body; larger is a 413.',
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    default: '30000',
    description:
      'Time for the request line, headers and body to arrive; a slower request gets 408 and its connection closed.',
  },
  {
    name: 'TRUST_PROXY',
    default: 'false',
    description:
      'Whose X-Forwarded-For to believe for the client address (authentication-failure limit, logs): false (the socket address), true (any proxy), a hop count, or a comma list of proxy addresses/CIDRs.',
  },
  {
    name: 'RATE_LIMIT_AUTH_FAILURES_PER_MINUTE',
    default: '30',
    description:
      'Failed authentications (unknown, malformed or revoked keys) per client address per rolling 60 s, counted in memory by each API process; then 429 for keys the address has not used successfully before.',
  },
  {
    name: 'RATE_LIMIT_CREATE_PER_MINUTE',
    default: '100',
    description: 'POST /v2/tracking_requests per account per rolling 60 s.',
  },
  {
    name: 'RATE_LIMIT_DEFAULT_PER_MINUTE',
    default: '100',
    description: 'Every other endpoint, per account per rolling 60 s.',
  },
  {
    name: 'RATE_LIMIT_INFER_PER_MINUTE',
    default: '200',
    description: 'POST /v2/tracking_requests/infer_number per account.',
  },
  {
    name: 'RATE_LIMIT_REFRESH_PER_MINUTE',
    default: '10',
    description: 'PATCH /v2/containers/{id}/refresh per account.',
  },
  {
    name: 'RATE_LIMIT_BATCH_MAX',
    default: '100',
    description:
      "Most requests an API process reserves from an account's limit in one database round trip and then admits from memory (never more than a tenth of what is left: the last requests of a window are counted one by one).",
  },
  {
    name: 'RESPONSE_CACHE_MB',
    default: '32',
    description:
      'Memory per API process for cached GET responses (shipments, containers, events, tracking requests); 0 turns the cache off. Entries are dropped on every committed change to the account (PostgreSQL NOTIFY), so reads stay fresh.',
  },
  {
    name: 'RESPONSE_CACHE_TTL_MS',
    default: '60000',
    description: 'Longest life of a cached response, a safety net behind the change feed.',
  },
  {
    name: 'CARRIERS_CONFIG',
    default: '(unset)',
    description:
      'Path of a JSON or YAML file listing carrier connections; unset means only the sandbox SCAC TEST.',
  },
  { name: 'ROLE', default: 'all', description: 'api, worker or all (also `npm start -- --role …`).' },
  {
    name: 'WORKER_POLL_INTERVAL_MS',
    default: '1000',
    description: 'How often an idle worker looks for due work.',
  },
  {
    name: 'WORKER_LEASE_MS',
    default: '120000',
    description: "How long a claimed item stays leased; a crashed worker's items are retaken after this.",
  },
  {
    name: 'WORKER_CONCURRENCY',
    default: '16',
    description: 'Carrier look-ups in flight per worker process.',
  },
  {
    name: 'TRACKING_RETRY_BASE_MS',
    default: '5300',
    description:
      'First retry delay after a temporary carrier failure; doubles each retry (each capped at 12 h), so 14 retries span about 24 h.',
  },
  {
    name: 'TRACKING_RETRY_MAX',
    default: '14',
    description: 'Retries after temporary failures before failed_reason retries_exhausted.',
  },
  {
    name: 'AWAITING_MANIFEST_INTERVAL_MS',
    default: '86400000',
    description: 'Re-check period for numbers the carrier does not know yet.',
  },
  {
    name: 'AWAITING_MANIFEST_MAX_MS',
    default: '604800000',
    description: 'Give up (failed, not_found) after this long awaiting manifest.',
  },
  { name: 'REFRESH_INTERVAL_MS', default: '21600000', description: 'Refresh cadence of active shipments.' },
  {
    name: 'REFRESH_NEAR_ARRIVAL_MS',
    default: '3600000',
    description: 'Refresh cadence within 3 days of arrival and until pickup.',
  },
  {
    name: 'STOP_ARRIVAL_WINDOW_MS',
    default: '4838400000',
    description: 'Stop tracking this long after arrival (past_arrival_window, 56 days).',
  },
  {
    name: 'STOP_FULL_OUT_WINDOW_MS',
    default: '2419200000',
    description: 'Stop tracking this long after the last pickup (past_full_out_window, 28 days).',
  },
  {
    name: 'STOP_NO_UPDATES_WINDOW_MS',
    default: '4838400000',
    description:
      'Stop tracking when the line reports nothing new for this long (no_updates_at_line, 56 days).',
  },
  {
    name: 'WEBHOOK_SIGNATURE_HEADER',
    default: 'X-SERVICE-Webhook-Signature',
    description: 'Header carrying the hex HMAC-SHA256 of the body.',
  },
  { name: 'WEBHOOK_ALLOW_HTTP', default: 'false', description: 'Allow http:// webhook URLs.' },
  {
    name: 'WEBHOOK_ALLOWLIST',
    default: '(empty)',
    description:
      'Comma list of receivers webhooks may reach even if private/loopback: ADDRESS, CIDR or HOST, each optionally with :PORT (IPv6 in brackets: [::1]:9000, [fd00::/8]:443); with a port only that port is open. Their answer bodies are never stored or shown.',
  },
  {
    name: 'WEBHOOK_SOURCE_IPS',
    default: '(empty)',
    description: 'Comma list of addresses (or CIDRs) deliveries come from, served at GET /v2/webhooks/ips.',
  },
  {
    name: 'WEBHOOK_RETRY_SCHEDULE',
    default: '5s,30s,2m,5m,30m,1h,2h,5h,10h,14h,20h,24h',
    description: 'Delays before retries 1..N (N = retries).',
  },
  { name: 'WEBHOOK_CONNECT_TIMEOUT_MS', default: '5000', description: 'Connect time-out of one delivery.' },
  { name: 'WEBHOOK_TIMEOUT_MS', default: '15000', description: 'Total time-out of one delivery.' },
  { name: 'WEBHOOK_CONCURRENCY', default: '64', description: 'Deliveries in flight per worker process.' },
  {
    name: 'WEBHOOK_PER_ENDPOINT_CONCURRENCY',
    default: '4',
    description: 'Deliveries in flight per webhook per worker process.',
  },
  {
    name: 'WEBHOOK_DEACTIVATE_AFTER_MS',
    default: '432000000',
    description: 'Deactivate a webhook whose every attempt has failed for this long (5 days)…',
  },
  {
    name: 'WEBHOOK_DEACTIVATE_MIN_SPAN_MS',
    default: '43200000',
    description: '…with failures spanning at least this long (12 h). A 410 Gone deactivates at once.',
  },
  {
    name: 'WEBHOOK_SECRET_GRACE_MS',
    default: '86400000',
    description: 'After a secret rotation, the old secret also signs for this long.',
  },
  {
    name: 'METRICS',
    default: 'open',
    description: 'GET /metrics: off, open, or token (needs METRICS_TOKEN; Authorization: Bearer <token>).',
  },
  {
    name: 'API_PROCESSES',
    default: '1',
    description:
      'API processes sharing the port (node:cluster); also `npm start -- --processes N`. Needs DATABASE_URL when above 1.',
  },
  {
    name: 'METRICS_PORT',
    default: '(unset)',
    description:
      'With --processes N and role all: port where the worker process serves /metrics and /healthz (role worker uses PORT).',
  },
  { name: 'METRICS_TOKEN', default: '(unset)', description: 'Bearer token for /metrics when METRICS=token.' },
  {
    name: 'TRACKER_API_KEY',
    default: '(unset)',
    description:
      'API key that `npm run mcp` (the MCP server over stdio) acts with; its account is what the agent sees.',
  },
  {
    name: 'DOCUMENT_MAX_BYTES',
    default: '26214400',
    description:
      'Largest uploaded document (multipart, direct upload or e-mail attachment); larger is a 413.',
  },
  {
    name: 'DOCUMENT_DOWNLOAD_URL_TTL_MS',
    default: '300000',
    description: 'How long a signed link from GET /v2/documents/{id}/download_url works.',
  },
  {
    name: 'DOCUMENTS_AUTO_TRACK',
    default: 'true',
    description:
      'A transport document whose B/L (else booking) number and carrier match no shipment creates a tracking request.',
  },
  {
    name: 'DOCUMENT_STORAGE',
    default: 'fs',
    description:
      'fs: files under DOCUMENT_STORAGE_DIR; s3: an S3-compatible bucket (DOCUMENT_S3_*), for API and worker processes on several machines.',
  },
  {
    name: 'DOCUMENT_STORAGE_DIR',
    default: '<DATA_DIR>/documents',
    description: 'Directory of document files with DOCUMENT_STORAGE=fs.',
  },
  {
    name: 'DOCUMENT_URL_SECRET',
    default: '(unset)',
    description:
      'Key that signs download links and direct-upload ids; unset: a random key made once and kept in the database.',
  },
  {
    name: 'DOCUMENT_S3_ENDPOINT',
    default: '(unset)',
    description: 'S3 endpoint, e.g. https://s3.eu-west-1.amazonaws.com or a MinIO URL.',
  },
  { name: 'DOCUMENT_S3_REGION', default: 'us-east-1', description: 'S3 region (SigV4 signing).' },
  { name: 'DOCUMENT_S3_BUCKET', default: '(unset)', description: 'S3 bucket (path-style addressing).' },
  { name: 'DOCUMENT_S3_ACCESS_KEY_ID', default: '(unset)', description: 'S3 access key id.' },
  { name: 'DOCUMENT_S3_SECRET_ACCESS_KEY', default: '(unset)', description: 'S3 secret access key.' },
  {
    name: 'DOCUMENT_OCR',
    default: 'true',
    description: 'Read scans and image-only pages with OCR (tesseract.js, English data from disk).',
  },
  {
    name: 'DOCUMENT_WORKER_CONCURRENCY',
    default: '1',
    description: 'Documents read at once per worker process (OCR is CPU-bound: about one per core).',
  },
  {
    name: 'DOCUMENT_RETRY_BASE_MS',
    default: '10000',
    description: 'First retry delay after an unexpected processing error; doubles each retry.',
  },
  {
    name: 'DOCUMENT_RETRY_MAX',
    default: '5',
    description: 'Retries after unexpected processing errors before extraction_failed (processing_error).',
  },
  {
    name: 'SMTP_PORT',
    default: '(unset)',
    description: 'Port of the inbound SMTP listener (worker role); unset: no listener.',
  },
  { name: 'SMTP_HOST', default: '127.0.0.1', description: 'Address the SMTP listener binds.' },
  {
    name: 'INBOUND_EMAIL_DOMAIN',
    default: 'localhost',
    description: "Domain of the accounts' inbound addresses (<token>@<domain>); point its MX at SMTP_PORT.",
  },
  {
    name: 'SMTP_MAX_BYTES',
    default: '41943040',
    description: 'Largest accepted message; larger is refused during the SMTP transaction.',
  },
];

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const { str, int, optionalInt, bool, oneOf, csv, headerName, hostName, origin, url } = readers(
    env,
    problems,
  );

  const dbUrl = url('DATABASE_URL', ['postgres:', 'postgresql:'], 'postgres://user@host:5432/db', true);
  const databaseUrl = dbUrl ? env.DATABASE_URL!.trim() : null;
  const publicBaseUrl = origin('PUBLIC_BASE_URL', 'https://track.example.com');
  const dataDir = str('DATA_DIR', './data');
  if (!databaseUrl) dirProblem('DATA_DIR', dataDir, problems);
  const host = hostName('HOST', '0.0.0.0');
  let retryScheduleMs: number[] = [];
  try {
    retryScheduleMs = parseScheduleConfig(
      str('WEBHOOK_RETRY_SCHEDULE', '5s,30s,2m,5m,30m,1h,2h,5h,10h,14h,20h,24h'),
    );
  } catch (err) {
    problems.push(`WEBHOOK_RETRY_SCHEDULE: ${(err as Error).message}`);
  }
  const allowlist = csv('WEBHOOK_ALLOWLIST');
  for (const p of parseAllowlist(allowlist).problems) problems.push(`WEBHOOK_ALLOWLIST ${p}`);
  const sourceIps = csv('WEBHOOK_SOURCE_IPS', (ip) =>
    ipaddr.IPv4.isValidFourPartDecimal(ip) || ipaddr.IPv6.isValid(ip) || ipaddr.isValidCIDR(ip)
      ? null
      : 'not an IP address or CIDR',
  );
  const metricsMode = oneOf('METRICS', 'open', ['off', 'open', 'token'] as const);
  const metricsToken = env.METRICS_TOKEN || null;
  const documentStorage = oneOf('DOCUMENT_STORAGE', 'fs', ['fs', 's3'] as const);
  if (documentStorage === 's3' && !(env.DOCUMENT_S3_ENDPOINT && env.DOCUMENT_S3_BUCKET)) {
    problems.push('DOCUMENT_STORAGE=s3 needs DOCUMENT_S3_ENDPOINT and DOCUMENT_S3_BUCKET');
  }
  const smtpPort = env.SMTP_PORT ? int('SMTP_PORT', 0, 0, 65535) : null;
  if (metricsMode === 'token' && !metricsToken) problems.push('METRICS=token needs METRICS_TOKEN');
  const apiProcesses = int('API_PROCESSES', 1, 1, 64, 'API_PROCESSES / --processes');
  if (apiProcesses > 1 && !databaseUrl) {
    problems.push(
      'API_PROCESSES (--processes) above 1 needs DATABASE_URL: embedded PGlite is a single-process database',
    );
  }
  const carriersConfig = str('CARRIERS_CONFIG', '') || null;
  let carriers: CarrierConfigEntry[] = [];
  try {
    carriers = carriersConfig ? loadCarriersConfigFile(carriersConfig, env) : [];
  } catch (err) {
    if (!(err instanceof CarrierConfigError)) throw err;
    for (const p of err.problems) problems.push(`CARRIERS_CONFIG ${carriersConfig}: ${p}`);
  }

  const config: Config = {
    port: int('PORT', 3000, 0, 65535),
    host,
    dataDir,
    databaseUrl,
    dbPoolSize: int('DB_POOL_SIZE', 10, 1, 1000),
    embeddedDbPort: int('EMBEDDED_DB_PORT', 0, 0, 65535),
    embeddedLockWaitMs: int('EMBEDDED_LOCK_WAIT_MS', 60000, 0),
    logLevel: oneOf('LOG_LEVEL', 'info', [
      'fatal',
      'error',
      'warn',
      'info',
      'debug',
      'trace',
      'silent',
    ] as const),
    publicBaseUrl,
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 102400, 1024, 50 * 1024 * 1024),
    requestTimeoutMs: int('REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    trustProxy: parseTrustProxy(env.TRUST_PROXY, problems),
    rateLimits: {
      create: int('RATE_LIMIT_CREATE_PER_MINUTE', 100, 1),
      default: int('RATE_LIMIT_DEFAULT_PER_MINUTE', 100, 1),
      infer: int('RATE_LIMIT_INFER_PER_MINUTE', 200, 1),
      refresh: int('RATE_LIMIT_REFRESH_PER_MINUTE', 10, 1),
      windowSeconds: 60,
      batchMax: int('RATE_LIMIT_BATCH_MAX', 100, 1, 100_000),
      authFailures: int('RATE_LIMIT_AUTH_FAILURES_PER_MINUTE', 30, 1),
    },
    cache: {
      responseMaxBytes: int('RESPONSE_CACHE_MB', 32, 0, 4096) * 1024 * 1024,
      ttlMs: int('RESPONSE_CACHE_TTL_MS', 60_000, 1, 3_600_000),
    },
    carriersConfig,
    carriers,
    role: oneOf('ROLE', 'all', ['api', 'worker', 'all'] as const, '--role / ROLE'),
    apiProcesses,
    metricsPort: optionalInt('METRICS_PORT', 1, 65535),
    worker: {
      pollIntervalMs: int('WORKER_POLL_INTERVAL_MS', 1000, 1),
      leaseMs: int('WORKER_LEASE_MS', 120_000, 10),
      concurrency: int('WORKER_CONCURRENCY', 16, 1, 1000),
      retryBaseMs: int('TRACKING_RETRY_BASE_MS', 5300, 1),
      retryMax: int('TRACKING_RETRY_MAX', 14, 0, 100),
      awaitingManifestIntervalMs: int('AWAITING_MANIFEST_INTERVAL_MS', 86_400_000, 1),
      awaitingManifestMaxMs: int('AWAITING_MANIFEST_MAX_MS', 604_800_000, 1),
      refreshIntervalMs: int('REFRESH_INTERVAL_MS', 21_600_000, 1),
      refreshNearArrivalMs: int('REFRESH_NEAR_ARRIVAL_MS', 3_600_000, 1),
      arrivalWindowMs: int('STOP_ARRIVAL_WINDOW_MS', 56 * 86_400_000, 1),
      fullOutWindowMs: int('STOP_FULL_OUT_WINDOW_MS', 28 * 86_400_000, 1),
      noUpdatesWindowMs: int('STOP_NO_UPDATES_WINDOW_MS', 56 * 86_400_000, 1),
    },
    webhooks: {
      signatureHeader: headerName('WEBHOOK_SIGNATURE_HEADER', 'X-SERVICE-Webhook-Signature'),
      allowHttp: bool('WEBHOOK_ALLOW_HTTP', false),
      allowlist,
      sourceIps,
      retryScheduleMs,
      connectTimeoutMs: int('WEBHOOK_CONNECT_TIMEOUT_MS', 5000, 1),
      totalTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 15000, 1),
      concurrency: int('WEBHOOK_CONCURRENCY', 64, 1, 10000),
      perEndpointConcurrency: int('WEBHOOK_PER_ENDPOINT_CONCURRENCY', 4, 1, 1000),
      deactivateAfterMs: int('WEBHOOK_DEACTIVATE_AFTER_MS', 5 * 86_400_000, 1),
      deactivateMinSpanMs: int('WEBHOOK_DEACTIVATE_MIN_SPAN_MS', 12 * 3_600_000, 0),
      secretRotationGraceMs: int('WEBHOOK_SECRET_GRACE_MS', 86_400_000, 0),
    },
    metrics: { mode: metricsMode, token: metricsToken },
    mcpApiKey: env.TRACKER_API_KEY?.trim() || null,
    documents: {
      maxBytes: int('DOCUMENT_MAX_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      downloadUrlTtlMs: int('DOCUMENT_DOWNLOAD_URL_TTL_MS', 300_000, 1, 7 * 86_400_000),
      autoTrack: bool('DOCUMENTS_AUTO_TRACK', true),
      storage: documentStorage,
      storageDir: env.DOCUMENT_STORAGE_DIR || `${dataDir.replace(/\/+$/, '')}/documents`,
      urlSecret: env.DOCUMENT_URL_SECRET || null,
      s3: {
        endpoint: env.DOCUMENT_S3_ENDPOINT || null,
        region: str('DOCUMENT_S3_REGION', 'us-east-1'),
        bucket: env.DOCUMENT_S3_BUCKET || null,
        accessKeyId: env.DOCUMENT_S3_ACCESS_KEY_ID || null,
        secretAccessKey: env.DOCUMENT_S3_SECRET_ACCESS_KEY || null,
      },
      ocr: bool('DOCUMENT_OCR', true),
      concurrency: int('DOCUMENT_WORKER_CONCURRENCY', 1, 1, 64),
      retryBaseMs: int('DOCUMENT_RETRY_BASE_MS', 10_000, 1),
      retryMax: int('DOCUMENT_RETRY_MAX', 5, 0, 100),
    },
    mail: {
      smtpPort,
      smtpHost: str('SMTP_HOST', '127.0.0.1'),
      inboundDomain: str('INBOUND_EMAIL_DOMAIN', 'localhost').toLowerCase(),
      maxBytes: int('SMTP_MAX_BYTES', 40 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}
