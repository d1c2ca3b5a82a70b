import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { Logger } from 'pino';
import type { Gate } from './gate.ts';

// Serves the owner's PGlite over PostgreSQL's wire protocol on loopback, so the CLI, psql and
// pg_dump reach the running server's database instead of opening its files a second time.
//
// pglite-socket's own query queue is not used: it interleaves clients message by message and
// knows nothing of this process's own queries (Kysely). Here every client message first takes the
// gate this process's Kysely connection also takes, and a client keeps it from its first message
// until the session is idle again after a Query or Sync (so a client transaction, or an extended
// protocol sequence Parse…Sync, is never entered by anyone else).
//
// So a client that holds the session and sends nothing (a psql session left after BEGIN) would
// stop the API and the worker for as long as it stays connected. A client that holds it idle
// longer than EMBEDDED_IDLE_IN_TRANSACTION_MS is rolled back and disconnected, as PostgreSQL's
// idle_in_transaction_session_timeout does. A statement that runs long cannot be cut short here:
// PGlite runs it synchronously in WebAssembly (no timer fires meanwhile, statement_timeout is not
// honoured, and there is no cancel entry point). So the statement time-out bounds the whole hold
// instead: a client that has kept the session longer than EMBEDDED_STATEMENT_TIMEOUT_MS (one
// statement, or a transaction of many) is rolled back and disconnected as soon as the statement
// running then ends, and a single statement outside a transaction simply finishes.

/** Why a client was dropped: what the log and the client are told. */
const DROPS = {
  idle: {
    setting: 'EMBEDDED_IDLE_IN_TRANSACTION_MS',
    code: '25P03',
    log: 'held the database idle in a transaction too long',
  },
  hold: {
    setting: 'EMBEDDED_STATEMENT_TIMEOUT_MS',
    code: '57014',
    log: 'held the database in one statement or transaction too long',
  },
} as const;
type DropReason = keyof typeof DROPS;

/** A FATAL ErrorResponse message of PostgreSQL's protocol. */
function fatal(code: string, message: string): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${code}\0M${message}\0\0`, 'utf8');
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(4 + fields.length, 1);
  return Buffer.concat([head, fields]);
}

const IN_SEQUENCE = new Set(['P', 'B', 'D', 'E', 'C', 'H', 'd', 'c', 'f'].map((c) => c.charCodeAt(0)));
/** A Sync message: ends an extended-protocol sequence a dropped client left open. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);

export interface EmbeddedServer {
  host: string;
  port: number;
  stop(): Promise<void>;
}

export async function startEmbeddedServer(opts: {
  pglite: PGlite;
  gate: Gate;
  host: string;
  port: number;
  /** NOTIFY sent by a socket client; PGlite tells only its own query API's listeners. */
  onNotify: (channel: string, payload: string) => void;
  /** How long a client may hold the session without sending anything; 0 = no limit. */
  idleInTransactionMs?: number;
  /** How long a client may hold the session in one go, busy or not; 0 = no limit. */
  statementTimeoutMs?: number;
  log?: Pick<Logger, 'warn'>;
}): Promise<EmbeddedServer> {
  const sockets = new Set<Socket>();
  const byHandler = new Map<number, Socket>();
  const queue = new SessionQueue(opts.pglite, opts.gate, opts.onNotify, {
    idleMs: opts.idleInTransactionMs ?? 0,
    holdMs: opts.statementTimeoutMs ?? 0,
    drop: (handlerId, why) => {
      const socket = byHandler.get(handlerId);
      const limit = DROPS[why];
      opts.log?.warn(
        {
          client: socket ? `${socket.remoteAddress}:${socket.remotePort}` : handlerId,
          limitMs: why === 'idle' ? opts.idleInTransactionMs : opts.statementTimeoutMs,
        },
        `embedded database client ${limit.log} (${limit.setting}): rolled back and disconnected`,
      );
      if (!socket) return;
      // Tell the client why, as PostgreSQL does when it ends a session, then close.
      socket.end(
        fatal(
          limit.code,
          `terminating connection: ${limit.log} (${limit.setting}); its transaction was rolled back`,
        ),
      );
      setTimeout(() => socket.destroy(), 1000).unref();
    },
  });
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    // The handler takes a structurally compatible queue (enqueue/clear…); see SessionQueue.
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    byHandler.set(handler.handlerId, socket);
    socket.on('close', () => {
      sockets.delete(socket);
      byHandler.delete(handler.handlerId);
    });
    handler.attach(socket).catch(() => socket.destroy());
  });
  server.maxConnections = 64;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    host: opts.host,
    port,
    async stop() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

interface Limits {
  idleMs: number;
  holdMs: number;
  drop: (handlerId: number, why: DropReason) => void;
}

class SessionQueue {
  #holder: number | null = null;
  #release: (() => void) | null = null;
  /** Clients waiting for the gate, and those of them that disconnected meanwhile. */
  #waiting = new Set<number>();
  #gone = new Set<number>();
  /** Clients dropped for idling while holding the session: what they still send is ignored. */
  #dropped = new Set<number>();
  #idleTimer: NodeJS.Timeout | null = null;
  /** When the holder took the session (Date.now()), for the statement time-out. */
  #heldSince = 0;
  readonly #pglite: PGlite;
  readonly #gate: Gate;
  readonly #onNotify: (channel: string, payload: string) => void;
  readonly #limits: Limits;

  constructor(
    pglite: PGlite,
    gate: Gate,
    onNotify: (channel: string, payload: string) => void,
    limits: Limits,
  ) {
    this.#pglite = pglite;
    this.#gate = gate;
    this.#onNotify = onNotify;
    this.#limits = limits;
  }

  async enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    if (this.#dropped.has(handlerId)) return 0;
    if (this.#holder === handlerId) this.#stopIdleTimer();
    else {
      this.#waiting.add(handlerId);
      const release = await this.#gate.acquire();
      this.#waiting.delete(handlerId);
      this.#holder = handlerId;
      this.#release = release;
      this.#heldSince = Date.now();
    }
    let bytes = 0;
    const scan = notificationScanner(this.#onNotify);
    try {
      await this.#pglite.runExclusive(() =>
        this.#pglite.execProtocolRawStream(message, {
          onRawData: (data) => {
            bytes += data.length;
            scan(data);
            onData(data);
          },
        }),
      );
    } finally {
      if (this.#gone.delete(handlerId)) await this.#letGo(handlerId);
      else if (!IN_SEQUENCE.has(message[0] ?? 0) && !this.#pglite.isInTransaction()) this.#pass(handlerId);
      else if (this.#overHold()) await this.#expire(handlerId, 'hold');
      else this.#startIdleTimer(handlerId);
    }
    return bytes;
  }

  #overHold(): boolean {
    const { holdMs } = this.#limits;
    return holdMs > 0 && Date.now() - this.#heldSince >= holdMs;
  }

  /** The holder now waits for its client's next message: bounded by both limits, whichever ends first. */
  #startIdleTimer(handlerId: number): void {
    const { idleMs, holdMs } = this.#limits;
    const holdLeft = holdMs > 0 ? this.#heldSince + holdMs - Date.now() : Number.POSITIVE_INFINITY;
    const idleLeft = idleMs > 0 ? idleMs : Number.POSITIVE_INFINITY;
    if (holdLeft === Number.POSITIVE_INFINITY && idleLeft === Number.POSITIVE_INFINITY) return;
    this.#stopIdleTimer();
    const why: DropReason = idleLeft <= holdLeft ? 'idle' : 'hold';
    this.#idleTimer = setTimeout(() => void this.#expire(handlerId, why), Math.min(idleLeft, holdLeft));
  }

  #stopIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  async #expire(handlerId: number, why: DropReason): Promise<void> {
    this.#stopIdleTimer();
    if (this.#holder !== handlerId) return;
    this.#dropped.add(handlerId);
    // The client may have left an extended-protocol sequence open: a Sync ends it before the rollback.
    await this.#pglite.runExclusive(() => this.#pglite.execProtocolRaw(SYNC)).catch(() => {});
    await this.#letGo(handlerId);
    this.#limits.drop(handlerId, why);
  }

  /** The client disconnected (called before clearTransactionIfNeeded). */
  clearQueueForHandler(handlerId: number): void {
    if (this.#waiting.has(handlerId)) this.#gone.add(handlerId);
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    this.#dropped.delete(handlerId);
    if (this.#holder === handlerId) await this.#letGo(handlerId);
  }

  getQueueLength(): number {
    return 0;
  }

  /** A client left while holding the session: roll back what it left open, then pass it on. */
  async #letGo(handlerId: number): Promise<void> {
    if (this.#holder !== handlerId) return;
    if (this.#pglite.isInTransaction()) await this.#pglite.exec('rollback').catch(() => {});
    this.#pass(handlerId);
  }

  #pass(handlerId: number): void {
    if (this.#holder !== handlerId) return;
    this.#stopIdleTimer();
    const release = this.#release;
    this.#holder = null;
    this.#release = null;
    release?.();
  }
}

/** Finds NotificationResponse ('A') messages in one execution's output (split across chunks). */
function notificationScanner(onNotify: (channel: string, payload: string) => void) {
  let pending = Buffer.alloc(0);
  return (chunk: Uint8Array) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
    let at = 0;
    while (pending.length - at >= 5) {
      const length = pending.readInt32BE(at + 1);
      if (pending.length - at < 1 + length) break;
      if (pending[at] === 0x41) {
        const body = pending.subarray(at + 9, at + 1 + length);
        const end = body.indexOf(0);
        const channel = body.subarray(0, end).toString('utf8');
        const payload = body.subarray(end + 1, body.indexOf(0, end + 1)).toString('utf8');
        onNotify(channel, payload);
      }
      at += 1 + length;
    }
    pending = pending.subarray(at);
  };
}
