import { mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { type Database, type ListenHandlers, openPglite, openPostgres } from './database.ts';
import { type LockInfo, myLockInfo, ownerAlive, readLock, tryLock } from './embedded-lock.ts';
import { type EmbeddedServer, startEmbeddedServer } from './embedded-server.ts';
import { startEmbeddedVacuum } from './embedded-vacuum.ts';
import { Gate } from './gate.ts';

// The embedded database has one owner process (see embedded-lock.ts):
//   - the server takes the lock, opens the files and serves them on a loopback port recorded in
//     the lock file; a second server start is refused at once, naming the owner;
//   - a CLI command connects to the running server through that port with the PostgreSQL driver;
//     with no server, it takes the lock and opens the files itself (another CLI command waits
//     for it, bounded by EMBEDDED_LOCK_WAIT_MS).

export class EmbeddedOwnedError extends Error {
  readonly dataDir: string;
  readonly owner: LockInfo;
  constructor(dataDir: string, owner: LockInfo) {
    super(
      `The embedded database in ${dataDir} is in use by process ${owner.pid} (${owner.role}, since ${owner.since}). ` +
        'Only one server may open a data directory: stop that process first, or use its database through ' +
        '`npm run cli -- db url`. (If no such process runs, the lock is stale and is broken automatically on the next start.)',
    );
    this.name = 'EmbeddedOwnedError';
    this.dataDir = dataDir;
    this.owner = owner;
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
  log?: Pick<Logger, 'info' | 'warn'>;
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
  const deadline = Date.now() + (opts.waitMs ?? 60_000);
  for (;;) {
    const lock = tryLock(opts.dataDir, opts.role);
    if (lock.acquired) {
      try {
        return await own(opts, lock);
      } catch (err) {
        lock.release();
        throw err;
      }
    }
    // Another server: refuse at once. A CLI command holding the files is waited for (bounded).
    if (opts.role === 'server' && lock.owner.role === 'server')
      throw new EmbeddedOwnedError(opts.dataDir, lock.owner);
    const { socket } = lock.owner;
    if (opts.role === 'cli' && socket && (await answers(socket))) {
      const url = socketUrl(socket);
      // Two connections: enough for a CLI command, few enough to leave the owner's session free.
      return { ...(await openPostgres(url, 2, { namedStatements: false })), url, pglite: null };
    }
    if (Date.now() >= deadline) throw new EmbeddedOwnedError(opts.dataDir, lock.owner);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function own(
  opts: EmbeddedOptions,
  lock: Extract<ReturnType<typeof tryLock>, { acquired: true }>,
): Promise<EmbeddedDatabase> {
  const gate = new Gate();
  let pglite!: PGlite;
  let database: Database;
  try {
    database = await openPglite(opts.dataDir, {
      gate,
      onPglite: (p) => {
        pglite = p;
      },
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
    opts.role === 'server' && opts.vacuumIntervalMs
      ? startEmbeddedVacuum(database, opts.vacuumIntervalMs, opts.log)
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

/** Whether something accepts connections on the recorded socket (a dead owner's port does not). */
function answers(socket: { host: string; port: number }, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: socket.host, port: socket.port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

/** The running owner's URL, from DATA_DIR alone; null when no live server serves it. */
export async function runningServerUrl(dataDir: string): Promise<string | null> {
  const owner = readLock(dataDir);
  if (!owner?.socket || !ownerAlive(owner)) return null;
  return (await answers(owner.socket)) ? socketUrl(owner.socket) : null;
}
