// HTTP plumbing shared by the DCSA clients (2.2 in dcsa/, 3.0.0 in dcsa-v3/): one paged walk of a
// `GET .../events` endpoint. The protocols differ only in what a page looks like, which header
// names the next page, the API-Version they send and which answers mean "not found"; all of that
// is a PageProtocol. Never throws: every HTTP outcome becomes a FetchResult.
//
// Status mapping: 200 + the protocol's body -> events; 204 -> no events; not-found answers (per
// protocol) on the first page -> not_found; 401/403 -> shipping_line_unreachable (OAuth tokens are
// refreshed once on 401); 429/503 -> wait and retry when Retry-After is short, else a temporary
// failure with retryAfterMs; 5xx, time-outs and connection errors -> shipping_line_unreachable;
// 3xx and anything else -> unrecognized_response (redirects are never followed: they could leak
// credentials to another host). An empty walk is not_found.

import { type CarrierProtocol, isNotFound } from '../config/carrier-protocol.ts';
import { parseRetryAfter } from '../util/retry-after.ts';
import { type AuthProvider, errorText } from './auth.ts';
import { abortableSleep, type RateBudget } from './rate-budget.ts';
import type { LookupResult } from './types.ts';

/** A lookup outcome with the carrier's raw events when found. */
export type FetchResult = Exclude<LookupResult, { kind: 'found' }> | { kind: 'found'; events: unknown[] };

export interface PageProtocol {
  /** Sent as the API-Version header. */
  apiVersion: string;
  /** The events of a 200 body, or null when the body is not of this protocol's shape. */
  events(json: unknown): unknown[] | null;
  /** What `events` expects, for the failure detail ("a JSON array"). */
  shape: string;
  /** Response headers that name the next page; the first one present wins. */
  nextHeaders: readonly string[];
  /** Whether a non-2xx answer to the first page means the carrier does not know the number. */
  notFound(status: number, body: string): boolean;
}

/** A protocol from an entry's configuration (carrier-protocol.ts) and the version's body shape. */
export function pageProtocol(
  config: CarrierProtocol,
  body: Pick<PageProtocol, 'events' | 'shape'>,
  standardHeaders: readonly string[],
): PageProtocol {
  return {
    ...body,
    apiVersion: config.api_version,
    // The configured header first; the standard's still count (a carrier may send both).
    nextHeaders: [...new Set([config.paging_header, ...standardHeaders])],
    notFound: (status, text) => isNotFound(config.not_found, status, errorReason(text)),
  };
}

export interface PagedFetchOptions {
  auth: AuthProvider;
  budget?: RateBudget;
  /** Per-request time-out (default 20 s). */
  timeoutMs?: number;
  /** Longest Retry-After (429/503) waited out within a lookup (default 5 s). */
  maxRetryWaitMs?: number;
  /** Pagination guard (default 50 pages). */
  maxPages?: number;
  /** How many times one page is retried after a short 429 (default 3). */
  maxRetriesPerPage?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for HTTP-date Retry-After values. */
  now?: () => number;
}

type Failure = Extract<LookupResult, { kind: 'temporary_failure' }>;

export const unreachable = (detail: string, retryAfterMs?: number): Failure =>
  retryAfterMs === undefined
    ? { kind: 'temporary_failure', reason: 'shipping_line_unreachable', detail }
    : { kind: 'temporary_failure', reason: 'shipping_line_unreachable', detail, retryAfterMs };
const unrecognized = (detail: string): Failure => ({
  kind: 'temporary_failure',
  reason: 'unrecognized_response',
  detail,
});

/**
 * The reason and message of a DCSA error body: 2.2's `errors[0]` (reason: message) or 3.0.0's
 * `feedbackElements[0].message`, whichever is there.
 */
export function errorReason(text: string): string | null {
  try {
    const json = JSON.parse(text) as {
      errors?: { reason?: unknown; message?: unknown }[];
      feedbackElements?: { message?: unknown }[];
    };
    const first = Array.isArray(json?.errors) ? json.errors[0] : undefined;
    const parts = first ? [first.reason, first.message] : [json?.feedbackElements?.[0]?.message];
    const r = parts.filter((x): x is string => typeof x === 'string').join(': ');
    return r === '' ? null : r;
  } catch {
    return null;
  }
}

/** A short excerpt of a DCSA error body (2.2 `errors[0]`, 3.0.0 `feedbackElements[0]`), or of the raw text. */
function errorExcerpt(text: string): string {
  try {
    const json = JSON.parse(text) as {
      errors?: { reason?: unknown; message?: unknown }[];
      feedbackElements?: { message?: unknown }[];
    };
    const first = Array.isArray(json?.errors) ? json.errors[0] : json?.feedbackElements?.[0];
    const msg = [(first as { reason?: unknown })?.reason, first?.message]
      .filter((x) => typeof x === 'string')
      .join(': ');
    if (msg) return `: ${msg.slice(0, 200)}`;
  } catch {
    // not JSON: fall through to the raw text
  }
  const t = text.replace(/\s+/g, ' ').trim();
  return t ? `: ${t.slice(0, 200)}` : '';
}

type PageOutcome = { ok: true; events: unknown[]; next: string | null } | { ok: false; result: FetchResult };

/** Reads every page from `first` on. `cursorParam` carries a bare cursor value. */
export type PagedFetch = (first: URL, signal?: AbortSignal) => Promise<FetchResult>;

export function createPagedFetch(
  options: PagedFetchOptions,
  protocol: PageProtocol,
  cursorParam = 'cursor',
): PagedFetch {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 5_000;
  const maxPages = options.maxPages ?? 50;
  const maxRetries = options.maxRetriesPerPage ?? 3;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;

  async function getPage(url: URL, firstPage: boolean, signal?: AbortSignal): Promise<PageOutcome> {
    let refreshedAuth = false;
    for (let attempt = 0; ; attempt++) {
      const budget = await options.budget?.acquire(signal);
      if (budget && !budget.ok) {
        const detail =
          budget.reason === 'aborted' ? 'lookup aborted' : 'request budget for this carrier exhausted';
        return { ok: false, result: unreachable(detail, budget.retryAfterMs || undefined) };
      }
      const auth = await options.auth.headers(signal);
      if (!auth.ok) {
        const r: Failure = { kind: 'temporary_failure', reason: auth.reason, detail: auth.detail };
        if (auth.retryAfterMs !== undefined) r.retryAfterMs = auth.retryAfterMs;
        return { ok: false, result: r };
      }
      const timeout = AbortSignal.timeout(timeoutMs);
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'GET',
          headers: { Accept: 'application/json', 'API-Version': protocol.apiVersion, ...auth.headers },
          redirect: 'manual',
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (err) {
        if (signal?.aborted) return { ok: false, result: unreachable('lookup aborted') };
        if (timeout.aborted) return { ok: false, result: unreachable(`no answer within ${timeoutMs} ms`) };
        return { ok: false, result: unreachable(`connection failed: ${errorText(err)}`) };
      }
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        const why = timeout.aborted ? `no complete answer within ${timeoutMs} ms` : errorText(err);
        return { ok: false, result: unreachable(`response body unreadable: ${why}`) };
      }
      const status = res.status;
      if (status === 200 || status === 203) {
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          return { ok: false, result: unrecognized('response body is not valid JSON') };
        }
        const events = protocol.events(json);
        if (!events) return { ok: false, result: unrecognized(`response body is not ${protocol.shape}`) };
        let next: string | null = null;
        for (const h of protocol.nextHeaders) next ??= res.headers.get(h)?.trim() || null;
        return { ok: true, events, next };
      }
      if (status === 204) return { ok: true, events: [], next: null };
      if (status === 429 || status === 503) {
        const wait = parseRetryAfter(res.headers.get('Retry-After'), now());
        if (wait !== null && wait <= maxRetryWaitMs && attempt < maxRetries) {
          await sleep(wait, signal);
          if (signal?.aborted) return { ok: false, result: unreachable('lookup aborted') };
          continue;
        }
        const what =
          status === 429 ? 'rate limited by the carrier (HTTP 429)' : 'carrier unavailable (HTTP 503)';
        return { ok: false, result: unreachable(what, wait ?? undefined) };
      }
      if (status === 401 && !refreshedAuth && options.auth.invalidate()) {
        refreshedAuth = true;
        continue;
      }
      if (status === 401 || status === 403) {
        return {
          ok: false,
          result: unreachable(`carrier rejected our credentials (HTTP ${status})${errorExcerpt(text)}`),
        };
      }
      if (firstPage && protocol.notFound(status, text)) return { ok: false, result: { kind: 'not_found' } };
      if (status >= 500)
        return { ok: false, result: unreachable(`carrier error (HTTP ${status})${errorExcerpt(text)}`) };
      if (status >= 300 && status < 400) {
        return {
          ok: false,
          result: unrecognized(`unexpected redirect (HTTP ${status}); redirects are not followed`),
        };
      }
      return { ok: false, result: unrecognized(`unexpected HTTP ${status}${errorExcerpt(text)}`) };
    }
  }

  /** The URL of the next page, or an error when the carrier points somewhere we will not go. */
  function nextUrl(next: string, first: URL): URL | Failure {
    if (/^https?:/i.test(next) || next.startsWith('/')) {
      let url: URL;
      try {
        url = new URL(next, first);
      } catch {
        return unrecognized('Next-Page is not a valid URL');
      }
      // Credentials go with every request: never send them to another origin.
      if (url.origin !== first.origin) return unrecognized(`Next-Page points to another host (${url.host})`);
      return url;
    }
    // A bare cursor goes back with every original filter (DCSA 3.0.0 requires it).
    const url = new URL(first);
    url.searchParams.set(cursorParam, next);
    return url;
  }

  async function walk(first: URL, signal?: AbortSignal): Promise<FetchResult> {
    const events: unknown[] = [];
    const seenIds = new Set<string>();
    const seenPages = new Set<string>([first.href]);
    let url = first;
    for (let page = 1; page <= maxPages; page++) {
      const outcome = await getPage(url, page === 1, signal);
      if (!outcome.ok) return outcome.result;
      for (const e of outcome.events) {
        const id = idOf(e);
        if (id !== null) {
          if (seenIds.has(id)) continue;
          seenIds.add(id);
        }
        events.push(e);
      }
      if (!outcome.next) break;
      const next = nextUrl(outcome.next, first);
      if (!(next instanceof URL)) return next;
      // A carrier that hands back a cursor we already followed would loop forever.
      if (seenPages.has(next.href)) break;
      seenPages.add(next.href);
      url = next;
    }
    return events.length === 0 ? { kind: 'not_found' } : { kind: 'found', events };
  }

  return async (first, signal) => {
    try {
      return await walk(first, signal);
    } catch (err) {
      return { kind: 'temporary_failure', reason: 'internal_processing_error', detail: errorText(err) };
    }
  };
}

function idOf(e: unknown): string | null {
  if (typeof e !== 'object' || e === null) return null;
  const o = e as Record<string, unknown>;
  const id = o.eventID ?? o.eventId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
