// HTTP client for DCSA T&T v2.2 `GET /v2/events` (CARRIER-NOTES §1). The only DCSA code that does
// network I/O. Turns every HTTP outcome into a FetchResult (a LookupResult whose found answer is
// still the raw event list; adapter.ts reads it into a snapshot) and never throws.
//
// Status mapping: 200 + JSON array -> events; 200 [] / 404 / 400 on the first page -> not_found;
// 401/403 -> shipping_line_unreachable (OAuth tokens are refreshed once on 401); 429 -> wait and
// retry when Retry-After is short, else a temporary failure with retryAfterMs; 5xx, time-outs and
// connection errors -> shipping_line_unreachable; 3xx and anything else unexpected ->
// unrecognized_response (redirects are never followed: they could leak credentials to another
// host).

import { type AuthProvider, errorText } from '../auth.ts';
import { abortableSleep, type RateBudget } from '../rate-budget.ts';
import type { LookupResult } from '../types.ts';

/** A lookup outcome with the carrier's raw events when found. */
export type FetchResult = Exclude<LookupResult, { kind: 'found' }> | { kind: 'found'; events: unknown[] };

export type DcsaReferenceFilter =
  | 'transportDocumentReference'
  | 'carrierBookingReference'
  | 'equipmentReference';

export interface DcsaClientOptions {
  /** Carrier base; `/v2/events` is appended (or `/events` when the base already ends in /v2). */
  baseUrl: string;
  auth: AuthProvider;
  budget?: RateBudget;
  /** Per-request time-out (default 20 s). */
  timeoutMs?: number;
  /** Longest Retry-After (429/503) waited out within a lookup (default 5 s). */
  maxRetryWaitMs?: number;
  /** `limit` query parameter (default 100). */
  pageSize?: number;
  /** Pagination guard (default 50 pages). */
  maxPages?: number;
  /** How many times one page is retried after a short 429 (default 3). */
  maxRetriesPerPage?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for HTTP-date Retry-After values. */
  now?: () => number;
}

export interface DcsaClient {
  fetchEvents(filter: DcsaReferenceFilter, value: string, signal?: AbortSignal): Promise<FetchResult>;
}

type Failure = Extract<LookupResult, { kind: 'temporary_failure' }>;

const unreachable = (detail: string, retryAfterMs?: number): Failure =>
  retryAfterMs === undefined
    ? { kind: 'temporary_failure', reason: 'shipping_line_unreachable', detail }
    : { kind: 'temporary_failure', reason: 'shipping_line_unreachable', detail, retryAfterMs };
const unrecognized = (detail: string): Failure => ({
  kind: 'temporary_failure',
  reason: 'unrecognized_response',
  detail,
});

export function eventsUrl(baseUrl: string): URL {
  const base = baseUrl.replace(/\/+$/, '');
  return new URL(/\/v2$/.test(base) ? `${base}/events` : `${base}/v2/events`);
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. Null when absent or unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  return Number.isFinite(date) ? Math.max(0, date - nowMs) : null;
}

/** A short excerpt of a DCSA error body (`errors[0].message`), or of the raw text. */
function errorExcerpt(text: string): string {
  try {
    const json = JSON.parse(text) as { errors?: { reason?: unknown; message?: unknown }[] };
    const first = Array.isArray(json?.errors) ? json.errors[0] : undefined;
    const msg = [first?.reason, first?.message].filter((x) => typeof x === 'string').join(': ');
    if (msg) return `: ${msg.slice(0, 200)}`;
  } catch {
    // not JSON: fall through to the raw text
  }
  const t = text.replace(/\s+/g, ' ').trim();
  return t ? `: ${t.slice(0, 200)}` : '';
}

type PageOutcome = { ok: true; events: unknown[]; next: string | null } | { ok: false; result: FetchResult };

export function createDcsaClient(options: DcsaClientOptions): DcsaClient {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? 5_000;
  const pageSize = options.pageSize ?? 100;
  const maxPages = options.maxPages ?? 50;
  const maxRetries = options.maxRetriesPerPage ?? 3;
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const endpoint = eventsUrl(options.baseUrl);

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
          headers: { Accept: 'application/json', 'API-Version': '2', ...auth.headers },
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
        if (!Array.isArray(json))
          return { ok: false, result: unrecognized('response body is not a JSON array') };
        const next = res.headers.get('Next-Page') ?? res.headers.get('Next-Page-Cursor');
        return { ok: true, events: json, next: next?.trim() || null };
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
      if ((status === 404 || status === 400) && firstPage)
        return { ok: false, result: { kind: 'not_found' } };
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
        url = new URL(next, endpoint);
      } catch {
        return unrecognized('Next-Page is not a valid URL');
      }
      // Credentials go with every request: never send them to another origin.
      if (url.origin !== endpoint.origin)
        return unrecognized(`Next-Page points to another host (${url.host})`);
      return url;
    }
    const url = new URL(first);
    url.searchParams.set('cursor', next);
    return url;
  }

  async function fetchEvents(filter: DcsaReferenceFilter, value: string, signal?: AbortSignal) {
    const first = new URL(endpoint);
    first.searchParams.set(filter, value);
    first.searchParams.set('limit', String(pageSize));
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
    return events.length === 0 ? ({ kind: 'not_found' } as const) : ({ kind: 'found', events } as const);
  }

  return {
    async fetchEvents(filter, value, signal) {
      try {
        return await fetchEvents(filter, value, signal);
      } catch (err) {
        return { kind: 'temporary_failure', reason: 'internal_processing_error', detail: errorText(err) };
      }
    },
  };
}

function idOf(e: unknown): string | null {
  if (typeof e !== 'object' || e === null) return null;
  const o = e as Record<string, unknown>;
  const id = o.eventID ?? o.eventId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}
