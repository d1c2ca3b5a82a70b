// Configuration of the API process: listening, database, request limits, rate limits, response cache.
import { availableParallelism } from 'node:os';
import { parseTrustProxy } from '../util/trust-proxy.ts';
import { custom, integer, oneOf, text } from './setting.ts';

/** Twice the cores plus one, the usual size for a database on the same machine (at least 4). */
const DEFAULT_POOL_SIZE = Math.max(4, 2 * availableParallelism() + 1);

export const HTTP_SCHEMA = {
  PORT: integer(3000, 'HTTP port of the API.', { min: 0, max: 65535 }),
  HOST: custom('IP address or host name', '0.0.0.0', 'Address the API listens on.', ({ name, read }) =>
    read.hostName(name, '0.0.0.0'),
  ),
  DATA_DIR: text(
    './data',
    'Where embedded PGlite keeps its files (used when DATABASE_URL is unset).',
    'writable directory path',
  ),
  DATABASE_URL: custom(
    'postgres:// URL',
    '(unset)',
    'postgres://… URL of a PostgreSQL server; unset means embedded PGlite.',
    ({ name, env, read }): string | null =>
      // A secret: the value (it may carry a password) is never echoed in a problem.
      read.url(name, ['postgres:', 'postgresql:'], 'postgres://user@host:5432/db', true)
        ? env[name]!.trim()
        : null,
  ),
  DATABASE_PREPARED_STATEMENTS: oneOf(
    'auto',
    ['auto', 'off'],
    "auto: the hot statements (the read path and the worker's claims, at most 100 of them) are prepared once per connection; off: no prepared statements, for a pooler in transaction mode (PgBouncer) in front of PostgreSQL (docs/deployment.md).",
  ),
  DATABASE_LISTEN_URL: custom(
    'postgres:// URL',
    '(unset)',
    "A direct connection to PostgreSQL (not through a pooler in transaction mode) for the change feed's LISTEN, which keeps the response and API key caches fresh. Unset: DATABASE_URL, or with DATABASE_PREPARED_STATEMENTS=off no LISTEN at all, and those caches stay off.",
    ({ name, env, read }): string | null =>
      read.url(name, ['postgres:', 'postgresql:'], 'postgres://user@host:5432/db', true)
        ? env[name]!.trim()
        : null,
  ),
  DB_POOL_SIZE: custom(
    'integer 1..1000',
    '2 × CPU cores + 1, at least 4',
    'Connections per process to PostgreSQL. The default fits a database on the same machine (on 2 cores, 5 connections served 1.3-1.6× the reads of 10: docs/benchmarks.md); for a server with more cores elsewhere, raise it.',
    ({ name, read }) => read.int(name, DEFAULT_POOL_SIZE, 1, 1000, name),
  ),
  EMBEDDED_DB_PORT: integer(
    0,
    'Loopback port on which the server serves its embedded database to the CLI and psql (`npm run cli -- db url`); 0 = any free port, recorded in DATA_DIR.',
    { min: 0, max: 65535 },
  ),
  EMBEDDED_LOCK_WAIT_MS: integer(
    60_000,
    'How long a starting server or a CLI command waits, re-checking every 100 ms, for the embedded database while its owner runs but does not answer on its socket (a server still starting or being stopped, a CLI command holding the files); an owner that answers refuses a second server at once, one that is gone or a zombie is taken over at once.',
    { min: 0 },
  ),
  EMBEDDED_IDLE_IN_TRANSACTION_MS: integer(
    60_000,
    'How long a client of the embedded database socket (psql, the CLI) may hold the database idle inside a transaction or an unfinished protocol sequence; past it the transaction is rolled back and the client disconnected, so the API and worker never wait longer than this behind a forgotten BEGIN. 0 = no limit.',
    { min: 0 },
  ),
  EMBEDDED_STATEMENT_TIMEOUT_MS: integer(
    120_000,
    'How long a client of the embedded database socket may keep the database to itself in one go: one statement, or a transaction from its first statement to its end. Past it the transaction is rolled back and the client disconnected as soon as the statement running then ends (PGlite cannot interrupt a statement in progress; a single statement outside a transaction finishes). 0 = no limit.',
    { min: 0 },
  ),
  EMBEDDED_VACUUM_INTERVAL_MS: integer(
    3_600_000,
    'How often the server vacuums and analyzes every table of its embedded database (PGlite runs no autovacuum, so without it updated rows are never reclaimed); 0 = never.',
    { min: 0 },
  ),
  EMBEDDED_ANALYZE_CHECK_MS: integer(
    60_000,
    'How often the server looks for tables of its embedded database that grew by a fifth since their planner statistics (or never had any) and analyzes them, between the vacuum passes; 0 = only at the vacuum passes.',
    { min: 0 },
  ),
  LOG_LEVEL: oneOf(
    'info',
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    'pino level: fatal, error, warn, info, debug, trace, silent.',
  ),
  PUBLIC_BASE_URL: custom(
    'http(s) origin',
    '(unset)',
    'Absolute origin used in pagination links, e.g. https://track.example.com. Unset: links are paths.',
    ({ name, read }) => read.origin(name, 'https://track.example.com'),
  ),
  AIS_FEED_URL: custom(
    'http(s) URL',
    '(unset)',
    'Base URL of an AIS-like vessel position feed (the carrier simulator serves one: `http://host:port`); maps use its fixes for vessels at sea. Unset: positions are estimated from schedules.',
    ({ name, env, problems, read }) => {
      const u = read.url(name, ['http:', 'https:'], 'http://127.0.0.1:4000');
      if (!u) return null;
      if (u.search || u.hash || u.username || u.password) {
        problems.push(
          `${name} must be a base URL without query, fragment or credentials, got "${env[name]}"`,
        );
        return null;
      }
      return u.href.replace(/\/+$/, '');
    },
  ),
  BODY_LIMIT_BYTES: integer(102400, 'Largest accepted request body; larger is a 413.', {
    min: 1024,
    max: 50 * 1024 * 1024,
  }),
  IMPORT_MAX_ROWS: integer(
    10_000,
    'Rows one CSV import (POST /v2/tracking_requests/import) may hold; more is a 413 and nothing is created.',
    { min: 1, max: 1_000_000 },
  ),
  IMPORT_MAX_BYTES: integer(2 * 1024 * 1024, 'Largest CSV body an import accepts; larger is a 413.', {
    min: 1024,
    max: 100 * 1024 * 1024,
  }),
  REQUEST_TIMEOUT_MS: integer(
    30_000,
    'Time for the request line, headers and body to arrive; a slower request gets 408 and its connection closed.',
    { min: 100, max: 3_600_000 },
  ),
  TRUST_PROXY: custom(
    'false | true | hop count | address list',
    'false',
    'Whose X-Forwarded-For to believe for the client address (authentication-failure limit, logs): false (the socket address), true (any proxy), a hop count, or a comma list of proxy addresses/CIDRs.',
    ({ name, env, problems }) => parseTrustProxy(env[name], problems),
  ),
  RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: integer(
    30,
    'Failed authentications (unknown, malformed or revoked keys) per client address per rolling 60 s, counted in memory by each API process; then 429 for keys the address has not used successfully before.',
    { min: 1 },
  ),
  RATE_LIMIT_CREATE_PER_MINUTE: integer(100, 'POST /v2/tracking_requests per account per rolling 60 s.', {
    min: 1,
  }),
  RATE_LIMIT_DEFAULT_PER_MINUTE: integer(100, 'Every other endpoint, per account per rolling 60 s.', {
    min: 1,
  }),
  RATE_LIMIT_INFER_PER_MINUTE: integer(200, 'POST /v2/tracking_requests/infer_number per account.', {
    min: 1,
  }),
  RATE_LIMIT_REFRESH_PER_MINUTE: integer(10, 'PATCH /v2/containers/{id}/refresh per account.', { min: 1 }),
  RATE_LIMIT_BATCH_MAX: integer(
    100,
    "Most requests an API process reserves from an account's limit in one database round trip and then admits from memory (never more than a tenth of what is left: the last requests of a window are counted one by one).",
    { min: 1, max: 100_000 },
  ),
  RESPONSE_CACHE_MB: integer(
    16,
    'Memory per API process for cached GET responses (shipments, containers, events, tracking requests); 0 turns the cache off. An answer larger than a 128th of it (counted as V8 keeps it: a byte a character for ASCII text, two for other text) is not cached. A committed change (PostgreSQL NOTIFY) drops the entries of the resources it changed and the lists of the account that can show them; a refresh that found nothing new drops nothing.',
    { min: 0, max: 4096 },
  ),
  RESPONSE_CACHE_TTL_MS: integer(
    60_000,
    'Longest life of a cached response, a safety net behind the change feed.',
    {
      min: 1,
      max: 3_600_000,
    },
  ),
};
