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
// honoured, and there is no cancel entry point).

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
  log?: Pick<Logger, 'warn'>;
}): Promise<EmbeddedServer> {
  const sockets = new Set<Socket>();
  const byHandler = new Map<number, Socket>();
  const queue = new SessionQueue(opts.pglite, opts.gate, opts.onNotify, {
    idleMs: opts.idleInTransactionMs ?? 0,
    drop: (handlerId, idleMs) => {
      const socket = byHandler.get(handlerId);
      opts.log?.warn(
        { client: socket ? `${socket.remoteAddress}:${socket.remotePort}` : handlerId, idleMs },
        'embedded database client held the database idle in a transaction too long (EMBEDDED_IDLE_IN_TRANSACTION_MS): rolled back and disconnected',
      );
      socket?.destroy();
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

class SessionQueue {
  #holder: number | null = null;
  #release: (() => void) | null = null;
  /** Clients waiting for the gate, and those of them that disconnected meanwhile. */
  #waiting = new Set<number>();
  #gone = new Set<number>();
  /** Clients dropped for idling while holding the session: what they still send is ignored. */
  #dropped = new Set<number>();
  #idleTimer: NodeJS.Timeout | null = null;
  readonly #pglite: PGlite;
  readonly #gate: Gate;
  readonly #onNotify: (channel: string, payload: string) => void;
  readonly #idle: { idleMs: number; drop: (handlerId: number, idleMs: number) => void };

  constructor(
    pglite: PGlite,
    gate: Gate,
    onNotify: (channel: string, payload: string) => void,
    idle: { idleMs: number; drop: (handlerId: number, idleMs: number) => void },
  ) {
    this.#pglite = pglite;
    this.#gate = gate;
    this.#onNotify = onNotify;
    this.#idle = idle;
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
      else this.#startIdleTimer(handlerId);
    }
    return bytes;
  }

  /** The holder now waits for its client's next message: bounded by the idle limit. */
  #startIdleTimer(handlerId: number): void {
    const { idleMs } = this.#idle;
    if (idleMs <= 0) return;
    this.#stopIdleTimer();
    this.#idleTimer = setTimeout(() => void this.#expire(handlerId), idleMs);
  }

  #stopIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  async #expire(handlerId: number): Promise<void> {
    this.#idleTimer = null;
    if (this.#holder !== handlerId) return;
    this.#dropped.add(handlerId);
    // The client may have left an extended-protocol sequence open: a Sync ends it before the rollback.
    await this.#pglite.runExclusive(() => this.#pglite.execProtocolRaw(SYNC)).catch(() => {});
    await this.#letGo(handlerId);
    this.#idle.drop(handlerId, this.#idle.idleMs);
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
