import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { type Database, type ListenHandlers, openPostgres } from './database.ts';
import { openPgliteDataDir } from './embedded-first-start.ts';
import { type LockInfo, myLockInfo, ownerAlive, readLock, tryLock } from './embedded-lock.ts';
import { type EmbeddedServer, startEmbeddedServer } from './embedded-server.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';
import { Gate } from './gate.ts';

// The embedded database has one owner process (see embedded-lock.ts):
//   - the server takes the lock, opens the files and serves them on a loopback port recorded in
//     the lock file; a second server start is refused at once when the owner answers there;
//   - a CLI command connects to the running server through that port with the PostgreSQL driver;
//     with no server, it takes the lock and opens the files itself;
//   - an owner that runs but does not answer (a server still starting, a CLI command holding the
//     files, a process hung or being killed) is waited for, re-checking, up to
//     EMBEDDED_LOCK_WAIT_MS: a supervisor restarting a killed server at once is not refused.

/** Why the directory could not be had: its owner answers, or it ran without answering until the wait ended. */
export type OwnedCase =
  | { kind: 'answering' }
  | { kind: 'not_answering'; waitedMs: number }
  | { kind: 'this_process' };

export class EmbeddedOwnedError extends Error {
  readonly dataDir: string;
  readonly owner: LockInfo;
  readonly case: OwnedCase;
  constructor(dataDir: string, owner: LockInfo, why: OwnedCase) {
    const who = `process ${owner.pid} (${owner.role}, since ${owner.since})`;
    const where = owner.socket ? `${owner.socket.host}:${owner.socket.port}` : 'its socket (not opened yet)';
    super(
      why.kind === 'answering'
        ? `The embedded database in ${dataDir} is in use by ${who}, which serves it on ${where}. ` +
            'Only one server may open a data directory: stop that process first, or use its database through ' +
            '`npm run cli -- db url`.'
        : why.kind === 'this_process'
          ? `The embedded database in ${dataDir} is already open in this process (${who}); use that one.`
          : `The embedded database in ${dataDir} is held by ${who}, which is running but did not answer on ${where} ` +
            `within ${why.waitedMs} ms (EMBEDDED_LOCK_WAIT_MS). If it hangs, stop it; if it is still starting or a ` +
            'CLI command is using the files, try again when it is done.',
    );
    this.name = 'EmbeddedOwnedError';
    this.dataDir = dataDir;
    this.owner = owner;
    this.case = why;
  }
}

/** PGlite could not open the files: say what to do rather than fail with a wasm stack trace. */
export class EmbeddedOpenError extends Error {
  constructor(dataDir: string, cause: unknown) {
    super(
      `The embedded database in ${dataDir} could not be opened: ${(cause as Error)?.message ?? cause}. ` +
        'No other process holds it (this process has its lock). If its files were damaged (disk full, files ' +
        'copied while a server ran, a process other than this service writing them), move the directory ' +
        'aside, start with an empty DATA_DIR and load your last `npm run cli -- db backup` with `db restore`.',
      { cause },
    );
    this.name = 'EmbeddedOpenError';
  }
}

export interface EmbeddedOptions {
  /** Absolute data directory. */
  dataDir: string;
  role: 'server' | 'cli';
  /** Loopback port to serve on (server role; 0 = any free port). */
  port?: number;
  /** How long to wait for a directory a CLI command holds (or, for the CLI, a server still opening). */
  waitMs?: number;
  /** Server role: how often to vacuum every table (PGlite runs no autovacuum); 0 = never. */
  vacuumIntervalMs?: number;
  /** EMBEDDED_ANALYZE_CHECK_MS (embedded-vacuum.ts); 0 or absent: statistics only at vacuum passes. */
  analyzeCheckMs?: number;
  /** Server role: how long a socket client may hold the database idle in a transaction; 0 = no limit. */
  idleInTransactionMs?: number;
  /** Server role: how long a socket client may hold the database in one go; 0 = no limit. */
  statementTimeoutMs?: number;
  log?: Pick<Logger, 'info' | 'warn'>;
  /** The cluster an empty directory is created from (tests); default the shipped one (pglite-cluster.ts). */
  pgliteCluster?: string;
}

export type EmbeddedDatabase = Database & {
  /** postgres:// URL of the socket this database is served on or reached through; null if none. */
  url: string | null;
  /** The PGlite instance when this process owns the files (backup uses it). */
  pglite: PGlite | null;
};

export function socketUrl(socket: { host: string; port: number }): string {
  return `postgres://postgres@${socket.host}:${socket.port}/postgres?sslmode=disable`;
}

export async function openEmbedded(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  mkdirSync(opts.dataDir, { recursive: true });
  const claim = await claimDataDir(opts);
  if ('socket' in claim) {
    const url = socketUrl(claim.socket);
    // Two connections: enough for a CLI command, few enough to leave the owner's session free.
    return { ...(await openPostgres(url, 2, { preparedStatements: 'off' })), url, pglite: null };
  }
  try {
    return await own(opts, claim.lock);
  } catch (err) {
    claim.lock.release();
    throw err;
  }
}

type HeldLock = Extract<ReturnType<typeof tryLock>, { acquired: true }>;

/**
 * Takes the data directory's lock, or (CLI) finds the live server to connect to. A live owner
 * answering on its socket refuses a server at once; one that does not answer is re-checked every
 * 100 ms until it answers, goes away or EMBEDDED_LOCK_WAIT_MS has passed.
 */
export async function claimDataDir(
  opts: Pick<EmbeddedOptions, 'dataDir' | 'role' | 'waitMs' | 'log'>,
): Promise<{ lock: HeldLock } | { socket: { host: string; port: number } }> {
  const started = Date.now();
  const deadline = started + (opts.waitMs ?? 60_000);
  let told = false;
  for (;;) {
    const lock = tryLock(opts.dataDir, opts.role);
    if (lock.acquired) return { lock };
    const { owner } = lock;
    if (owner.socket && (await answers(owner.socket))) {
      if (opts.role === 'cli') return { socket: owner.socket };
      throw new EmbeddedOwnedError(opts.dataDir, owner, { kind: 'answering' });
    }
    // Waiting for itself would only run out the clock.
    if (owner.pid === process.pid)
      throw new EmbeddedOwnedError(opts.dataDir, owner, { kind: 'this_process' });
    if (Date.now() >= deadline)
      throw new EmbeddedOwnedError(opts.dataDir, owner, {
        kind: 'not_answering',
        waitedMs: Date.now() - started,
      });
    if (!told) {
      told = true;
      opts.log?.warn(
        { owner: owner.pid, role: owner.role, waitMs: opts.waitMs },
        'the embedded database is held by a running process that does not answer on its socket; waiting for it',
      );
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function own(opts: EmbeddedOptions, lock: HeldLock): Promise<EmbeddedDatabase> {
  const gate = new Gate();
  let pglite!: PGlite;
  let database: Database;
  try {
    database = await openPgliteDataDir(opts.dataDir, {
      gate,
      onPglite: (p) => {
        pglite = p;
      },
      log: opts.log,
      cluster: opts.pgliteCluster,
    });
  } catch (err) {
    throw new EmbeddedOpenError(opts.dataDir, err);
  }
  // NOTIFY from socket clients (CLI key revocations, account changes) reaches these handlers.
  const listeners = new Set<ListenHandlers>();
  let server: EmbeddedServer | null = null;
  if (opts.role === 'server') {
    try {
      server = await startEmbeddedServer({
        pglite,
        gate,
        host: '127.0.0.1',
        port: opts.port ?? 0,
        idleInTransactionMs: opts.idleInTransactionMs ?? 0,
        statementTimeoutMs: opts.statementTimeoutMs ?? 0,
        log: opts.log,
        onNotify: (channel, payload) => {
          for (const l of listeners) l.onNotify(channel, payload);
        },
      });
    } catch (err) {
      await database.close().catch(() => {});
      throw err;
    }
    lock.update({ ...myLockInfo('server'), socket: { host: server.host, port: server.port } });
  }
  const vacuum =
    opts.role === 'server' && (opts.vacuumIntervalMs || opts.analyzeCheckMs)
      ? startEmbeddedVacuum(database, opts.vacuumIntervalMs ?? 0, opts.log, opts.analyzeCheckMs ?? 0)
      : null;
  let closed = false;
  return {
    ...database,
    url: server ? socketUrl(server) : null,
    pglite,
    async listen(channels, handlers) {
      const wanted = new Set(channels);
      const filtered: ListenHandlers = {
        onNotify: (ch, payload) => {
          if (wanted.has(ch)) handlers.onNotify(ch, payload);
        },
        onState: handlers.onState,
      };
      const stop = await database.listen(channels, handlers);
      listeners.add(filtered);
      return async () => {
        listeners.delete(filtered);
        await stop();
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await vacuum?.stop();
        await server?.stop();
        await database.close();
      } finally {
        lock.release();
      }
    },
  };
}

/**
 * Whether a PostgreSQL server answers on the recorded socket: an SSLRequest is answered with one
 * byte, 'N' or 'S', without a session (the embedded server answers it even while a client holds
 * the database). A dead owner's port refuses; a port another program took answers otherwise.
 */
export function answers(socket: { host: string; port: number }, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: socket.host, port: socket.port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => {
      const request = Buffer.alloc(8);
      request.writeInt32BE(8, 0);
      request.writeInt32BE(80877103, 4);
      s.write(request);
    });
    s.once('data', (d) => done(d[0] === 0x4e || d[0] === 0x53));
    s.once('error', () => done(false));
    s.once('close', () => done(false));
  });
}

/** The running owner's URL, from DATA_DIR alone; null when no live server serves it. */
export async function runningServerUrl(dataDir: string): Promise<string | null> {
  const owner = readLock(dataDir);
  if (!owner?.socket || !ownerAlive(owner, dataDir)) return null;
  return (await answers(owner.socket)) ? socketUrl(owner.socket) : null;
}
