// All configuration comes from environment variables, validated once at start. Each variable is one
// entry of the schema (src/config/schema-*.ts: type, default, meaning and validation); this module is the
// only reader of process.env, and docs/configuration.md is printed from the same entries
// (`npm run docs:config`, `npm run cli -- config`; test/config/schema.test.ts keeps the file equal).
import type { CarrierConfigEntry } from './config/carriers.ts';
import { dirProblem, type Env, readers } from './config/readers.ts';
import { ALERT_SCHEMA, type SmtpOut } from './config/schema-alerts.ts';
import { DOCUMENT_SCHEMA } from './config/schema-documents.ts';
import { HTTP_SCHEMA } from './config/schema-http.ts';
import { OPS_SCHEMA } from './config/schema-ops.ts';
import { WEBHOOK_SCHEMA } from './config/schema-webhooks.ts';
import { WORKER_SCHEMA } from './config/schema-worker.ts';
import { readSchema } from './config/setting.ts';
import type { TerminalConfigEntry } from './config/terminals.ts';
import type { TrustProxy } from './util/trust-proxy.ts';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Whether hot statements are prepared (off behind a pooler in transaction mode). */
  databasePreparedStatements: 'auto' | 'off';
  /** Where the change feed LISTENs; null: nowhere (its caches stay off). */
  databaseListenUrl: string | null;
  dbPoolSize: number;
  /** Loopback port of the embedded database's socket (0 = any free port). */
  embeddedDbPort: number;
  /** How long a starting server or CLI waits for an embedded database whose running owner does not answer. */
  embeddedLockWaitMs: number;
  /** How long an embedded-socket client may hold the database idle in a transaction (0 = no limit). */
  embeddedIdleInTransactionMs: number;
  /** How long an embedded-socket client may hold the database in one go, busy or idle (0 = no limit). */
  embeddedStatementTimeoutMs: number;
  embeddedVacuumIntervalMs: number;
  embeddedAnalyzeCheckMs: number;
  logLevel: string;
  publicBaseUrl: string | null;
  bodyLimitBytes: number;
  /** CSV imports of tracking requests: rows and bytes one import may hold. */
  importLimits: { rows: number; bytes: number };
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
  /** Base URL of the AIS-like position feed (AIS_FEED_URL), or null for schedule estimates only. */
  aisFeedUrl: string | null;
  /** The validated contents of CARRIERS_CONFIG (empty when unset). */
  carriers: CarrierConfigEntry[];
  /** The validated contents of TERMINALS_CONFIG (empty when unset). */
  terminals: TerminalConfigEntry[];
  /** Cadence of terminal checks per container (TERMINAL_CHECK_INTERVAL_MS). */
  terminalCheckIntervalMs: number;
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
    /** The reader child process ends after this long unused. */
    readerIdleMs: number;
    /** A read not answered by then fails (and its reader is ended). */
    readTimeoutMs: number;
    concurrency: number;
    retryBaseMs: number;
    retryMax: number;
  };
  mail: { smtpPort: number | null; smtpHost: string; inboundDomain: string; maxBytes: number };
  alerts: {
    /** SMTP_OUT_URL; null: alert rules are kept but nothing is sent. */
    smtp: SmtpOut | null;
    from: string;
    maxRecipients: number;
    maxRules: number;
    digestMaxEvents: number;
    concurrency: number;
    retryScheduleMs: number[];
  };
}

export type { Env };

/** Every variable the service reads, in the order of docs/configuration.md. */
export const SCHEMA = {
  ...HTTP_SCHEMA,
  ...WORKER_SCHEMA,
  ...WEBHOOK_SCHEMA,
  ...DOCUMENT_SCHEMA,
  ...ALERT_SCHEMA,
  ...OPS_SCHEMA,
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

export interface Setting {
  name: string;
  type: string;
  default: string;
  description: string;
}

/** Every variable with its type, default and meaning (the tables of docs/configuration.md). */
export const SETTINGS: Setting[] = Object.entries(SCHEMA).map(([name, s]) => ({
  name,
  type: s.type,
  default: s.default,
  description: s.description,
}));

/** A configuration table, as `npm run cli -- config` prints it (all settings unless given some). */
export function settingsTable(settings: Setting[] = SETTINGS): string {
  const rows = settings.map((s) => `| \`${s.name}\` | \`${s.default}\` | ${s.description} |\n`);
  return `| Variable | Default | Meaning |\n|---|---|---|\n${rows.join('')}`;
}

/**
 * The process environment with `defaults` under it and `overrides` (command-line flags) over it: how
 * entry points adjust configuration without reading process.env themselves.
 */
export function environment(overrides: Env = {}, defaults: Env = {}): Env {
  return { ...defaults, ...process.env, ...overrides };
}

/** Reads and validates the configuration from `env` (the process environment unless given). */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const v = readSchema(SCHEMA, env, problems, readers(env, problems));

  // Checks across variables.
  if (!v.DATABASE_URL) dirProblem('DATA_DIR', v.DATA_DIR, problems);
  if (v.DATABASE_LISTEN_URL && !v.DATABASE_URL) problems.push('DATABASE_LISTEN_URL needs DATABASE_URL');
  if (v.METRICS === 'token' && !v.METRICS_TOKEN) problems.push('METRICS=token needs METRICS_TOKEN');
  if (v.API_PROCESSES > 1 && !v.DATABASE_URL) {
    problems.push(
      'API_PROCESSES (--processes) above 1 needs DATABASE_URL: embedded PGlite is a single-process database',
    );
  }
  if (v.DOCUMENT_STORAGE === 's3' && !(v.DOCUMENT_S3_ENDPOINT && v.DOCUMENT_S3_BUCKET)) {
    problems.push('DOCUMENT_STORAGE=s3 needs DOCUMENT_S3_ENDPOINT and DOCUMENT_S3_BUCKET');
  }
  if (problems.length > 0) throw new ConfigError(problems);

  const config: Config = {
    port: v.PORT,
    host: v.HOST,
    dataDir: v.DATA_DIR,
    databaseUrl: v.DATABASE_URL,
    databasePreparedStatements: v.DATABASE_PREPARED_STATEMENTS,
    databaseListenUrl:
      v.DATABASE_LISTEN_URL ?? (v.DATABASE_PREPARED_STATEMENTS === 'off' ? null : v.DATABASE_URL),
    dbPoolSize: v.DB_POOL_SIZE,
    embeddedDbPort: v.EMBEDDED_DB_PORT,
    embeddedLockWaitMs: v.EMBEDDED_LOCK_WAIT_MS,
    embeddedIdleInTransactionMs: v.EMBEDDED_IDLE_IN_TRANSACTION_MS,
    embeddedStatementTimeoutMs: v.EMBEDDED_STATEMENT_TIMEOUT_MS,
    embeddedVacuumIntervalMs: v.EMBEDDED_VACUUM_INTERVAL_MS,
    embeddedAnalyzeCheckMs: v.EMBEDDED_ANALYZE_CHECK_MS,
    logLevel: v.LOG_LEVEL,
    publicBaseUrl: v.PUBLIC_BASE_URL,
    bodyLimitBytes: v.BODY_LIMIT_BYTES,
    importLimits: { rows: v.IMPORT_MAX_ROWS, bytes: v.IMPORT_MAX_BYTES },
    requestTimeoutMs: v.REQUEST_TIMEOUT_MS,
    trustProxy: v.TRUST_PROXY,
    rateLimits: {
      create: v.RATE_LIMIT_CREATE_PER_MINUTE,
      default: v.RATE_LIMIT_DEFAULT_PER_MINUTE,
      infer: v.RATE_LIMIT_INFER_PER_MINUTE,
      refresh: v.RATE_LIMIT_REFRESH_PER_MINUTE,
      windowSeconds: 60,
      batchMax: v.RATE_LIMIT_BATCH_MAX,
      authFailures: v.RATE_LIMIT_AUTH_FAILURES_PER_MINUTE,
    },
    cache: { responseMaxBytes: v.RESPONSE_CACHE_MB * 1024 * 1024, ttlMs: v.RESPONSE_CACHE_TTL_MS },
    carriersConfig: v.CARRIERS_CONFIG.path,
    aisFeedUrl: v.AIS_FEED_URL,
    carriers: v.CARRIERS_CONFIG.carriers,
    terminals: v.TERMINALS_CONFIG.terminals,
    terminalCheckIntervalMs: v.TERMINAL_CHECK_INTERVAL_MS,
    role: v.ROLE,
    apiProcesses: v.API_PROCESSES,
    metricsPort: v.METRICS_PORT,
    worker: {
      pollIntervalMs: v.WORKER_POLL_INTERVAL_MS,
      leaseMs: v.WORKER_LEASE_MS,
      concurrency: v.WORKER_CONCURRENCY,
      retryBaseMs: v.TRACKING_RETRY_BASE_MS,
      retryMax: v.TRACKING_RETRY_MAX,
      awaitingManifestIntervalMs: v.AWAITING_MANIFEST_INTERVAL_MS,
      awaitingManifestMaxMs: v.AWAITING_MANIFEST_MAX_MS,
      refreshIntervalMs: v.REFRESH_INTERVAL_MS,
      refreshNearArrivalMs: v.REFRESH_NEAR_ARRIVAL_MS,
      arrivalWindowMs: v.STOP_ARRIVAL_WINDOW_MS,
      fullOutWindowMs: v.STOP_FULL_OUT_WINDOW_MS,
      noUpdatesWindowMs: v.STOP_NO_UPDATES_WINDOW_MS,
    },
    webhooks: {
      signatureHeader: v.WEBHOOK_SIGNATURE_HEADER,
      allowHttp: v.WEBHOOK_ALLOW_HTTP,
      allowlist: v.WEBHOOK_ALLOWLIST,
      sourceIps: v.WEBHOOK_SOURCE_IPS,
      retryScheduleMs: v.WEBHOOK_RETRY_SCHEDULE,
      connectTimeoutMs: v.WEBHOOK_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: v.WEBHOOK_TIMEOUT_MS,
      concurrency: v.WEBHOOK_CONCURRENCY,
      perEndpointConcurrency: v.WEBHOOK_PER_ENDPOINT_CONCURRENCY,
      deactivateAfterMs: v.WEBHOOK_DEACTIVATE_AFTER_MS,
      deactivateMinSpanMs: v.WEBHOOK_DEACTIVATE_MIN_SPAN_MS,
      secretRotationGraceMs: v.WEBHOOK_SECRET_GRACE_MS,
    },
    metrics: { mode: v.METRICS, token: v.METRICS_TOKEN },
    mcpApiKey: v.TRACKER_API_KEY,
    documents: {
      maxBytes: v.DOCUMENT_MAX_BYTES,
      downloadUrlTtlMs: v.DOCUMENT_DOWNLOAD_URL_TTL_MS,
      autoTrack: v.DOCUMENTS_AUTO_TRACK,
      storage: v.DOCUMENT_STORAGE,
      storageDir: v.DOCUMENT_STORAGE_DIR ?? `${v.DATA_DIR.replace(/\/+$/, '')}/documents`,
      urlSecret: v.DOCUMENT_URL_SECRET,
      s3: {
        endpoint: v.DOCUMENT_S3_ENDPOINT,
        region: v.DOCUMENT_S3_REGION,
        bucket: v.DOCUMENT_S3_BUCKET,
        accessKeyId: v.DOCUMENT_S3_ACCESS_KEY_ID,
        secretAccessKey: v.DOCUMENT_S3_SECRET_ACCESS_KEY,
      },
      ocr: v.DOCUMENT_OCR,
      readerIdleMs: v.DOCUMENT_READER_IDLE_MS,
      readTimeoutMs: v.DOCUMENT_READ_TIMEOUT_MS,
      concurrency: v.DOCUMENT_WORKER_CONCURRENCY,
      retryBaseMs: v.DOCUMENT_RETRY_BASE_MS,
      retryMax: v.DOCUMENT_RETRY_MAX,
    },
    mail: {
      smtpPort: v.SMTP_PORT,
      smtpHost: v.SMTP_HOST,
      inboundDomain: v.INBOUND_EMAIL_DOMAIN,
      maxBytes: v.SMTP_MAX_BYTES,
    },
    alerts: {
      smtp: v.SMTP_OUT_URL,
      from: v.ALERT_FROM,
      maxRecipients: v.ALERT_MAX_RECIPIENTS,
      maxRules: v.ALERT_MAX_RULES,
      digestMaxEvents: v.ALERT_DIGEST_MAX_EVENTS,
      concurrency: v.ALERT_CONCURRENCY,
      retryScheduleMs: v.ALERT_RETRY_SCHEDULE,
    },
  };
  return Object.freeze(config);
}

/**
 * The configuration of this process, or exit 2 with the message (no stack trace): what every entry
 * point does first, before loading the modules of the service, so a bad value fails at once.
 */
export function configOrExit(overrides: Env = {}, defaults: Env = {}): Config {
  try {
    return loadConfig(environment(overrides, defaults));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
