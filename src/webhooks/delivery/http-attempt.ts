// One delivery attempt: a single POST, no redirects, hard time limits, a bounded read of the answer.
// Never throws: every failure becomes an AttemptOutcome the caller records and schedules from.

import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import { parseRetryAfter } from '../../util/retry-after.ts';
import { FRAMING_HEADERS } from '../framing-headers.ts';
import { undici } from './undici.ts';

export { createDispatcher } from './address-guard.ts';

export const ACK_STATUSES: ReadonlySet<number> = new Set([200, 201, 202, 204]);
export const DEFAULT_USER_AGENT = 'tracker-webhooks/0.1';

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  /** null on success; else e.g. 'timeout', 'connect_timeout', 'connection_refused',
   * 'blocked_address' (a host name resolving to a refused address, or to none),
   * 'blocked_address: loopback' (an address written in the URL), 'redirect_not_followed', 'tls_error', 'http_500'. */
  error: string | null;
  /** What `error` leaves out (the host name's address, the DNS error), for the operator's log only:
   * never stored or answered. */
  detail?: string;
  durationMs: number;
  /** From Retry-After on 429 and 503 only. */
  retryAfterMs: number | null;
  /** At most maxExcerptBytes of the response body (UTF-8, never a split character); null if no response
   * or if the receiver is `internal`. */
  responseExcerpt: string | null;
  /** 410 Gone: the receiver asks us to stop (see shouldDeactivate). */
  gone: boolean;
}

export interface AttemptInput {
  url: string;
  /** The exact bytes to send (a string is sent as UTF-8). */
  body: string | Buffer;
  headers: Record<string, string>;
  /** A guarded dispatcher (createAddressPolicy(...).dispatcher): it owns the connect timeout and the
   * per-connection address check. Callers run policy.checkUrl first for a readable refusal. */
  dispatcher: Dispatcher;
  /** Whole attempt: queueing, connecting, headers and the excerpt read. */
  totalTimeoutMs?: number;
  maxExcerptBytes?: number;
  userAgent?: string;
  /** The receiver is reachable only through WEBHOOK_ALLOWLIST (AddressPolicy.route): its status and timing
   * are kept, never its body, so the API cannot be used to read internal services. */
  internal?: boolean;
}

const DROPPED = new Set(FRAMING_HEADERS);

/** Maps a thrown error to a short stable code for storage and metrics. */
export function classifyError(err: unknown): string {
  const e = err as { code?: string; name?: string; reason?: string; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return 'network_error';
  // Where a host name points, or that it points nowhere, is not told (UNREACHABLE_HOST): one answer.
  if (e.code === 'ERR_BLOCKED_ADDRESS') {
    return (e as { resolved?: boolean }).resolved ? 'blocked_address' : `blocked_address: ${e.reason}`;
  }
  switch (e.code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect_timeout';
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timeout';
    case 'ECONNREFUSED':
      return 'connection_refused';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return 'connection_reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
      return 'blocked_address';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'unreachable';
    case 'HPE_INVALID_CONSTANT':
    case 'HPE_INVALID_STATUS':
      return 'invalid_response';
    case 'UND_ERR_INVALID_ARG':
    case 'ERR_INVALID_URL':
      return 'invalid_url';
  }
  if (e.name === 'TimeoutError') return 'timeout';
  if (
    /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|ERR_OSSL)/.test(e.code ?? '') ||
    e.code === 'HOSTNAME_MISMATCH'
  ) {
    return 'tls_error';
  }
  // Node reports "every address failed" (happy eyeballs) as an AggregateError: classify the first.
  if (err instanceof AggregateError && err.errors.length > 0) return classifyError(err.errors[0]);
  if (e.cause) return classifyError(e.cause);
  return `network_error: ${e.code ?? e.name ?? 'unknown'}`;
}

/** The messages along an error's causes (the first of an AggregateError's), for the operator's log. */
function messages(err: unknown): string {
  const out: string[] = [];
  for (
    let e = err as { message?: string; cause?: unknown; errors?: unknown[] } | undefined;
    e && out.length < 5;
  ) {
    if (e.message) out.push(e.message);
    e = (e.cause ?? (e instanceof AggregateError ? e.errors[0] : undefined)) as typeof e;
  }
  return out.join(': ');
}

/** Reads up to `max` bytes, then destroys the stream so the rest is never pulled off the socket. */
async function readExcerpt(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  const decoder = new StringDecoder('utf8');
  let text = '';
  let taken = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const part = chunk.subarray(0, max - taken);
      taken += part.length;
      text += decoder.write(part); // holds back a character split at the cut
      if (taken >= max) break;
    }
  } catch {
    // A timeout or reset mid-body keeps what arrived: the status code already answered.
  } finally {
    if (!body.destroyed) body.destroy();
  }
  return text;
}

export async function attemptDelivery(input: AttemptInput): Promise<AttemptOutcome> {
  const total = input.totalTimeoutMs ?? 15_000;
  const maxExcerpt = input.maxExcerptBytes ?? 1024;
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, total);

  const headers: Record<string, string> = { 'user-agent': input.userAgent ?? DEFAULT_USER_AGENT };
  for (const [k, v] of Object.entries(input.headers)) {
    if (!DROPPED.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
  }
  headers['content-type'] = 'application/json';

  const failed = (error: string, detail?: string): AttemptOutcome => ({
    ok: false,
    statusCode: null,
    error,
    ...(detail === undefined ? {} : { detail }),
    durationMs: elapsed(),
    retryAfterMs: null,
    responseExcerpt: null,
    gone: false,
  });

  try {
    let res: Dispatcher.ResponseData;
    try {
      res = await undici().request(input.url, {
        method: 'POST',
        body: input.body,
        headers,
        dispatcher: input.dispatcher,
        signal: controller.signal,
        headersTimeout: total,
        bodyTimeout: total,
      });
    } catch (err) {
      if (timedOut) return failed('timeout');
      const error = classifyError(err);
      return error === 'blocked_address' ? failed(error, messages(err)) : failed(error);
    }
    const status = res.statusCode;
    // Internal: read nothing worth keeping (a 0-byte excerpt only ends the body cleanly), keep null.
    const excerpt = await readExcerpt(res.body, input.internal ? 0 : maxExcerpt);
    const ok = ACK_STATUSES.has(status);
    let error: string | null = null;
    if (!ok) error = status >= 300 && status < 400 ? 'redirect_not_followed' : `http_${status}`;
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after'], Date.now()) : null;
    return {
      ok,
      statusCode: status,
      error,
      durationMs: elapsed(),
      retryAfterMs,
      responseExcerpt: input.internal ? null : excerpt,
      gone: status === 410,
    };
  } finally {
    clearTimeout(timer);
  }
}
