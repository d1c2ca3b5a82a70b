// Which errors mean "the database connection is gone or refused" rather than "this statement is
// wrong". Those are transient for the service (a failover, a restart, a DBA terminating sessions):
// requests answer 503 with Retry-After and worker loops back off, instead of a 500 or a crash.

/** SQLSTATEs of a server going away or refusing sessions (class 08: connection exception). */
const SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, fast/immediate shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '57P05', // idle_session_timeout
  '53300', // too_many_connections
]);

/** Socket-level failures (Node's error codes) on the way to or from the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);

/** node-postgres and pg-pool report these without a code. */
const MESSAGES = [
  /^Connection terminated/, // "Connection terminated unexpectedly", "... due to connection timeout"
  /not queryable/, // "Client has encountered a connection error and is not queryable"
  /^timeout exceeded when trying to connect$/,
  /^Connection ended/,
];

/** True when `err` (or an error it wraps) is a lost or refused database connection. */
export function isConnectionError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, errors } = e as { code?: unknown; message?: unknown; errors?: unknown };
    if (typeof code === 'string' && (SQLSTATES.has(code) || code.startsWith('08') || SOCKET_CODES.has(code)))
      return true;
    if (typeof message === 'string' && MESSAGES.some((re) => re.test(message))) return true;
    // Node reports a refused connection to every address of a host name as an AggregateError.
    if (Array.isArray(errors) && errors.length > 0 && errors.every((x) => isConnectionError(x))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Back-off for loops that meet connection errors: doubles from `baseMs` to `maxMs`, with jitter so
 * that many processes do not reconnect in lockstep after a failover; `reset()` after a success.
 * `wait()` sleeps the next delay; only `cancel()` (a loop stopping) cuts it short, not the loop's
 * usual wake-ups, which during an outage would turn the back-off back into a busy loop.
 */
export interface Backoff {
  next(): number;
  wait(): Promise<void>;
  cancel(): void;
  reset(): void;
}

export function createBackoff(baseMs: number, maxMs: number): Backoff {
  let n = 0;
  let cancel: (() => void) | null = null;
  const next = () => {
    const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(n, 20));
    n++;
    return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
  };
  return {
    next,
    wait: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, next());
        function done() {
          clearTimeout(timer);
          cancel = null;
          resolve();
        }
        cancel = done;
      }),
    cancel: () => cancel?.(),
    reset() {
      n = 0;
    },
  };
}
