import { mkdirSync } from 'node:fs';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PGliteDialect, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { createBackoff } from './connection-errors.ts';
import { behindGate, Gate } from './gate.ts';
import { listsAsArrays } from './list-parameters.ts';
import type { DB } from './schema.ts';
import { type PreparedStatements, preparing, type Statement, statementNames } from './statement-names.ts';

export type Engine = 'pglite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  engine: Engine;
  /** Runs a multi-statement SQL script (migrations). */
  exec(script: string): Promise<void>;
  /**
   * The first row of one statement, as an array of its columns (undefined: no row), past the query
   * builder: the hot reads (src/shipments/sql-bodies/) send one prepared statement each. The
   * statement is named (as statement-names.ts allows), so each session parses and plans it once.
   */
  queryRow(statement: Statement, values: unknown[]): Promise<unknown[] | undefined>;
  /** Every row of one statement, as queryRow answers one (a page answered a row per resource). */
  queryRows(statement: Statement, values: unknown[]): Promise<unknown[][]>;
  /** Statements it runs at once: the pool's size (PGlite: one session, so 1). */
  connections: number;
  /** Pool usage for metrics: connections in use and total (PGlite: one connection). */
  poolStats(): { total: number; idle: number; waiting: number };
  /**
   * Listens to NOTIFY channels on a connection of its own (see change-feed.ts). `onState(false)`
   * means notifications may have been missed (connection lost; it reconnects by itself),
   * `onState(true)` that it listens again. Resolves once listening; returns a stop function.
   */
  listen(channels: string[], handlers: ListenHandlers): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** A statement with a name unique to its text (the name of its prepared statement). */
export type { Statement } from './statement-names.ts';

export interface ListenHandlers {
  onNotify(channel: string, payload: string): void;
  onState(listening: boolean): void;
}

// timestamptz/date come back as JS Dates (both engines); int8 counts are cast to int in SQL.

/** Where the PostgreSQL side reports connection trouble (the process's logger). */
export type ConnectionLog = Pick<Logger, 'warn' | 'info'>;

/**
 * `preparedStatements: 'off'` for servers whose connections share sessions: a pooler in transaction
 * mode (statement-names.ts), or the embedded database's socket (PGlite has one backend, so statement
 * names would collide between clients). `listenUrl`: where LISTEN connects (default `url`); null
 * listens nowhere, and the change feed says it is down (see listenPostgres).
 */
export async function openPostgres(
  url: string,
  poolSize = 10,
  opts: { log?: ConnectionLog; preparedStatements?: PreparedStatements; listenUrl?: string | null } = {},
): Promise<Database> {
  const { log } = opts;
  const names = statementNames(opts.preparedStatements ?? 'auto');
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    // Seen in pg_stat_activity; a DATABASE_URL that names one wins.
    application_name: 'tracker',
    // A peer that vanished without a FIN (failover, network cut) is noticed by TCP keepalive.
    keepAlive: true,
  });
  // Connection loss must never crash the process. pg-pool listens for `error` only while a
  // client is idle; a client that is checked out (a request's query, a worker's transaction)
  // and loses its server emits `error` with nobody listening, which Node turns into a crash.
  // So every client gets a listener of its own for its whole life: the failing query rejects
  // (the caller answers 503 or backs off), and the pool discards the broken client on release.
  pool.on('connect', (client) => {
    client.on('error', (err) => log?.warn({ err: brief(err) }, 'database connection lost'));
    // No JIT in the service's sessions. PostgreSQL compiles a statement's expressions again at
    // every execution once its estimated cost passes jit_above_cost, which the triggers' statements
    // on grown tables do: seeding 600 shipments beside 10,000 took 13.3 s with JIT and 7.9 s
    // without, and at 100,000 LLVM was most of a batch's time (docs/benchmarks.md). Every
    // statement here is short. A SET rather than a startup option: poolers refuse those. Queued
    // ahead of the client's first query; a failure shows on that query.
    client.query('set jit = off').catch(() => {});
  });
  // An idle client that breaks: the pool has already dropped it (and logged it above).
  pool.on('error', () => {});
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({ pool: names.max > 0 ? preparing(pool, names) : pool }),
    plugins: [listsAsArrays()],
  });
  const queryRows: Database['queryRows'] = async (statement, values) => {
    const name = names.nameOf(statement);
    const r = await pool.query({
      ...(name ? { name } : {}),
      text: statement.text,
      values,
      rowMode: 'array',
    });
    return r.rows as unknown[][];
  };
  return {
    db,
    engine: 'postgres',
    connections: poolSize,
    async exec(script) {
      const client = await pool.connect();
      try {
        await client.query(script);
      } catch (err) {
        // A failed multi-statement script leaves its transaction open on this session.
        await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    queryRow: async (statement, values) => (await queryRows(statement, values))[0],
    queryRows,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channels, handlers) => {
      const listenUrl = opts.listenUrl === undefined ? url : opts.listenUrl;
      return listenUrl ? listenPostgres(listenUrl, channels, handlers, log) : listenNowhere(handlers, log);
    },
    close: () => db.destroy(),
  };
}

/** The part of a pg error worth a log line (no stack: connection loss is an expected event). */
function brief(err: unknown): { message: string; code?: string } {
  const e = err as { message?: string; code?: string };
  return { message: String(e?.message ?? err), code: e?.code };
}

/**
 * No connection to LISTEN on (behind a pooler in transaction mode, LISTEN lands on a server
 * connection that goes back to the pool, and its notifications reach nobody): the feed is down for
 * good, so whatever it keeps fresh (the response and key caches) stays off.
 */
async function listenNowhere(handlers: ListenHandlers, log?: ConnectionLog): Promise<() => Promise<void>> {
  log?.info('change feed off: no direct connection for LISTEN (DATABASE_LISTEN_URL)');
  handlers.onState(false);
  return async () => {};
}

/**
 * A dedicated client outside the pool (LISTEN is per session). It reconnects by itself with
 * back-off (100 ms doubling to 2 s, jittered) for as long as it takes; `onState(false)` when the
 * session is lost, `onState(true)` when it listens again, so the caller can flush what the
 * notifications it may have missed would have invalidated.
 */
async function listenPostgres(
  url: string,
  channels: string[],
  handlers: ListenHandlers,
  log?: ConnectionLog,
): Promise<() => Promise<void>> {
  let stopped = false;
  let up = false;
  let client: pg.Client | null = null;
  let timer: NodeJS.Timeout | undefined;
  const backoff = createBackoff(100, 2000);
  const connect = async (): Promise<void> => {
    const c = new pg.Client({
      connectionString: url,
      application_name: 'tracker-listen',
      keepAlive: true,
      // A server that accepts the socket but never answers must not stall the retries.
      connectionTimeoutMillis: 5000,
    });
    c.on('notification', (m) => handlers.onNotify(m.channel, m.payload ?? ''));
    let lost = false;
    const onLost = (err?: unknown) => {
      if (lost) return;
      lost = true;
      c.end().catch(() => {});
      if (client === c) client = null;
      // Only the first failure of an outage is worth a line; the caller logs the state change.
      if (up) log?.warn({ err: err ? brief(err) : undefined }, 'change feed connection lost; reconnecting');
      up = false;
      handlers.onState(false);
      if (!stopped) timer = setTimeout(() => connect().catch(() => {}), backoff.next()).unref();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    try {
      await c.connect();
      for (const ch of channels) await c.query(`listen "${ch.replaceAll('"', '""')}"`);
    } catch (err) {
      onLost(err);
      throw err;
    }
    if (stopped || lost) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    backoff.reset();
    up = true;
    handlers.onState(true);
  };
  // A failed first attempt is retried like a lost connection; the caches stay off meanwhile.
  await connect().catch(() => {});
  return async () => {
    stopped = true;
    clearTimeout(timer);
    const c = client;
    client = null;
    await c?.end().catch(() => {});
  };
}

const PGLITE_SHARED_BUFFERS = '16MB';

/**
 * Embedded PGlite; `dataDir` null = in memory (tests). Opening a data directory is for its one
 * owner only (see embedded.ts, which holds the lock and passes the `gate` it shares with the
 * socket server); `onPglite` hands the instance to that owner. `loadDataDir`: a data directory
 * dumped by PGlite's dumpDataDir to start from instead of an empty cluster (tests start from a
 * migrated one: creating a cluster, PostgreSQL's initdb, is most of an empty start's seconds).
 */
export async function openPglite(
  dataDir: string | null,
  opts: { gate?: Gate; onPglite?: (pglite: PGlite) => void; loadDataDir?: Blob } = {},
): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // pg_trgm ships with PGlite as a contrib extension: the search indexes (migrations/0033) use it.
  const extensions = { pg_trgm };
  // PostgreSQL's default 128 MB of shared buffers live in PGlite's WebAssembly memory, which grows as
  // pages are touched and never shrinks: under read load the process held ~490 MB. With 32 MB it held
  // ~390 MB at the same throughput (pages beyond it come from the OS page cache); see docs/benchmarks.md.
  // 16 MB took another 26-35 MB off (node alone, npm start's flags with --liftoff-only, 100 sandbox
  // shipments tracked: 316 against 351 MB once tracked, 260 against 286 MB under cache-off reads and
  // at rest, reads within the run's noise); 8 MB took nothing more (253-263 MB), and neither did
  // work_mem 1 MB, maintenance_work_mem 8 MB and temp_buffers 1 MB beside 16 MB (264 MB): these
  // statements sort and hash a few kB, and a vacuum pass of that data grew the process by 8 MB with
  // either maintenance_work_mem (docs/architecture.md, small hosts).
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
  const options = { extensions, startParams, ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}) };
  const pglite = dataDir ? new PGlite(dataDir, options) : new PGlite(options);
  await pglite.waitReady;
  opts.onPglite?.(pglite);
  const gate = opts.gate ?? new Gate();
  const db = new Kysely<DB>({
    dialect: behindGate(new PGliteDialect({ pglite }), gate),
    plugins: [listsAsArrays()],
  });
  const prepared = new Set<string>();
  const names = statementNames('auto');
  let waiting = 0;
  const queryRows: Database['queryRows'] = async (statement, values) => {
    // PGlite runs a statement synchronously, within the microtasks of the request that sent it, so
    // while it ran the event loop read no other request: batched-rows.ts never found a second
    // look-up waiting, and every shipment read under load was a statement of its own (1.0 ids per
    // statement, 225-316 reads/s with the response cache off). One turn of the event loop first
    // (setImmediate runs after the I/O callbacks that are ready) lets the requests that have
    // arrived queue their look-ups, and the next statement takes them together (14 ids per
    // statement, 2,210 reads/s; docs/architecture.md, small hosts).
    await new Promise((resolve) => setImmediate(resolve));
    // Through the gate like every other use of the one session (see withMutex).
    const unlock = await gate.acquire();
    try {
      if (names.nameOf(statement)) return await executePrepared(pglite, prepared, statement, values);
      return (await pglite.query<unknown[]>(statement.text, values, { rowMode: 'array' })).rows;
    } finally {
      unlock();
    }
  };
  return {
    db,
    engine: 'pglite',
    connections: 1,
    async exec(script) {
      // Go through Kysely's connection so the mutex applies.
      await db.connection().execute(async () => {
        waiting++;
        try {
          await pglite.exec(script);
        } catch (err) {
          await pglite.exec('rollback').catch(() => {});
          throw err;
        } finally {
          waiting--;
        }
      });
    },
    queryRow: async (statement, values) => (await queryRows(statement, values))[0],
    queryRows,
    poolStats: () => ({ total: 1, idle: waiting > 0 ? 0 : 1, waiting: 0 }),
    async listen(channels, handlers) {
      // Through the mutex, so LISTEN never lands inside another caller's open transaction.
      // PGlite calls the handlers while the notifying query completes: no delay, no loss.
      const stops = await db
        .connection()
        .execute(() =>
          Promise.all(channels.map((ch) => pglite.listen(ch, (payload) => handlers.onNotify(ch, payload)))),
        );
      handlers.onState(true);
      return async () => {
        await db.connection().execute(() => Promise.all(stops.map((stop) => stop())));
      };
    },
    async close() {
      await db.destroy();
      // Kysely closes PGlite only once a query of its own has run: a database used only through
      // queryRows would stay open (its files too, and the process would not exit).
      if (!pglite.closed) await pglite.close();
    },
  };
}

/**
 * A named statement in one call into PGlite: the extended protocol's messages (Parse on first use,
 * then Bind, Describe, Execute, Sync) go in as one buffer and PostgreSQL answers them in one pass.
 * PGlite's query() parses and plans its statement on every call (an unnamed statement) and sends
 * each message in a call of its own (Parse, Describe, Bind, Describe, Execute, Sync: six passes
 * through its protocol loop); the EXECUTE of an SQL-level PREPARE that this replaces still took two
 * of those query() calls' six passes each, and parsed the EXECUTE with its values quoted as literals.
 * Here the values go as Bind's text parameters (String(v), null as SQL null), and the rows are
 * parsed by PGlite's own type parsers, as query() parses them. Run inside PGlite's query lock
 * (runExclusive), as query() runs, besides the gate. A session that lost its statements (DISCARD
 * ALL from a socket client) gets them prepared again.
 */
async function executePrepared(
  pglite: PGlite,
  prepared: Set<string>,
  statement: Statement,
  values: unknown[],
): Promise<unknown[][]> {
  const { serialize } = protocol;
  const text = values.map((v) => (v === null || v === undefined ? null : String(v)));
  const run = async () => {
    const first = !prepared.has(statement.name);
    const message = concatBytes([
      ...(first ? [serialize.parse({ name: statement.name, text: statement.text })] : []),
      serialize.bind({ statement: statement.name, values: text }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]);
    const { messages } = await pglite.runExclusive(() => pglite.execProtocol(message, { syncToFs: false }));
    if (first) prepared.add(statement.name);
    return (parse.parseResults(messages, pglite.parsers, { rowMode: 'array' })[0]?.rows ?? []) as unknown[][];
  };
  try {
    return await run();
  } catch (err) {
    if ((err as { code?: string }).code !== '26000') throw err; // 26000: no such prepared statement
    prepared.delete(statement.name);
    return run();
  }
}

function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export async function openDatabase(opts: {
  databaseUrl: string | null;
  dataDir: string | null;
  poolSize?: number;
  /** PostgreSQL: where lost connections are reported. */
  log?: ConnectionLog;
}): Promise<Database> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.poolSize, { log: opts.log })
    : openPglite(opts.dataDir);
}
