import { API_VERSION, dcsaError, type Reply } from './dcsa-http.ts';
import type { SimEvent } from './events.ts';
import { FLAKY_RETRY_AFTER_SECONDS, flakyOutcome } from './flaky.ts';
import { matchesReference } from './match.ts';
import { decodeCursor, encodeCursor } from './pagination.ts';
import { eventMatches, isFilterParam, parseEventQuery, sortEvents } from './query.ts';
import { resolveReference, type Shipment, visibleEvents } from './scenarios.ts';
import { API_VERSION_V3, feedbackError, toV3 } from './v3.ts';

// GET /v2/events (and /v3/events, the same answer in 3.0.0's shape, v3.ts): resolve the reference filters to simulated shipments, keep the events visible
// at the simulated instant that match every filter, then sort and cut one page.

export interface EventsRequest {
  method: string;
  /** Path and query as received (DCSA error bodies echo it). */
  uri: string;
  params: URLSearchParams;
  /** Absolute URL of this endpoint without query, for URL-style Next-Page links. */
  endpointUrl: string;
}

export interface EventsContext {
  epochMs: number;
  nowMs: number;
  notFoundStatus: 200 | 404;
  /** When set, unknown references get a 400 whose error message is this text (overrides notFoundStatus). */
  notFoundReason?: string;
  pageLinks: 'cursor' | 'url';
  hangMs: number;
  /** Count a request for a reference value; returns the count including this request. */
  count(value: string): number;
  /** Answer in DCSA 3.0.0's shape (`{events}`, Next-Page-Cursor, feedbackElements errors). */
  v3?: boolean;
}

type ErrorReply = (
  status: number,
  reason: string,
  message: string,
  headers?: Record<string, string>,
) => Reply;

/** Our own query flag (not DCSA): `simPageLinks=url` makes Next-Page a full URL for this walk. */
const PAGE_LINKS_FLAG = 'simPageLinks';

export function answerEvents(req: EventsRequest, ctx: EventsContext): Reply {
  const error: ErrorReply = (status, reason, message, headers) =>
    ctx.v3 ? feedbackError(status, message, headers) : dcsaError(req, status, reason, message, headers);
  let params = req.params;
  let page = 0;
  let atMs = ctx.nowMs;
  let size: number | undefined;
  const cursorRaw = params.get('cursor');
  if (cursorRaw !== null) {
    const state = decodeCursor(cursorRaw);
    if (!state) return error(400, 'invalidCursor', 'The cursor is not one this server issued');
    // Clients send the cursor with the original filters, or (URL-style links) alone.
    const hasFilters = [...params.keys()].some(isFilterParam);
    params = new URLSearchParams(hasFilters ? without(params, 'cursor') : state.query);
    ({ page, atMs, size } = state);
  }
  const parsed = parseEventQuery(params);
  if (!parsed.ok) return error(400, 'invalidQuery', parsed.message);
  const query = parsed.query;
  if (query.references.length === 0) {
    return error(
      400,
      'invalidQuery',
      'At least one of carrierBookingReference, transportDocumentReference or equipmentReference is required',
    );
  }

  // Resolve every reference value; a value of a known shipment may stand for another (the
  // TEST-TR-SUCCEEDED container alias), so the filter is rewritten to what the events carry.
  const found = new Map<string, Shipment>();
  let flakyCount = 0;
  for (const ref of query.references) {
    const rewritten = new Set<string>();
    for (const value of ref.values) {
      const count = ctx.count(value);
      const r = resolveReference(ref.kind, value, ctx.epochMs);
      if (r?.kind === 'failure') return error(400, 'invalidQuery', r.detail);
      if (!r) continue;
      rewritten.add(r.reference.value);
      // Known to the carrier only once an event for this very reference is published.
      const own = new Set([r.reference.value]);
      if (!visibleEvents(r.shipment, atMs).some((e) => matchesReference(e.event, r.reference.kind, own)))
        continue;
      found.set(r.shipment.id, r.shipment);
      if (r.shipment.flaky && flakyCount === 0) flakyCount = count;
    }
    ref.values = rewritten;
  }

  if (flakyCount > 0) {
    const failure = flaky(error, flakyCount, ctx.hangMs);
    if (failure) return failure;
  }
  if (found.size === 0) {
    if (ctx.notFoundReason !== undefined) return error(400, 'notFound', ctx.notFoundReason);
    if (ctx.notFoundStatus === 404) return error(404, 'notFound', 'No events found for the given references');
    return pageReply([], params, { page, size: size ?? query.limit, atMs }, req, ctx);
  }
  const seen = new Set<string>();
  const matching: SimEvent[] = [];
  for (const shipment of found.values()) {
    for (const e of visibleEvents(shipment, atMs)) {
      if (!seen.has(e.event.eventID) && eventMatches(e, query)) {
        seen.add(e.event.eventID);
        matching.push(e);
      }
    }
  }
  // Publication order by default: with several shipments, merge them by creation time.
  if (found.size > 1) matching.sort((a, b) => a.createdMs - b.createdMs);
  return pageReply(
    sortEvents(matching, query.sort),
    params,
    { page, size: size ?? query.limit, atMs },
    req,
    ctx,
  );
}

function pageReply(
  events: SimEvent[],
  params: URLSearchParams,
  state: { page: number; size: number; atMs: number },
  req: EventsRequest,
  ctx: EventsContext,
): Reply {
  const { page, size, atMs } = state;
  const pages = Math.max(1, Math.ceil(events.length / size));
  const query = without(params, 'cursor', 'limit').toString();
  const cursor = (p: number) => encodeCursor({ page: p, size, atMs, query });
  const asUrl = ctx.pageLinks === 'url' || params.get(PAGE_LINKS_FLAG) === 'url';
  const link = (p: number) => (asUrl ? `${req.endpointUrl}?cursor=${cursor(p)}` : cursor(p));
  if (ctx.v3) {
    // 3.0.0 has one paging header, a bare cursor sent back with the original filters.
    const body = events
      .slice(page * size, (page + 1) * size)
      .map((e) => (e.v3json ??= JSON.stringify(toV3(e.event))));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'API-Version': API_VERSION_V3,
    };
    if (page + 1 < pages) headers['Next-Page-Cursor'] = cursor(page + 1);
    return { status: 200, headers, body: `{"events":[${body.join(',')}]}` };
  }
  const headers: Record<string, string> = {
    'API-Version': API_VERSION,
    'Current-Page': link(page),
    'First-Page': link(0),
    'Last-Page': link(pages - 1),
  };
  if (page + 1 < pages) {
    headers['Next-Page'] = link(page + 1);
    headers['Next-Page-Cursor'] = cursor(page + 1);
  }
  if (page > 0) headers['Prev-Page'] = link(Math.min(page, pages) - 1);
  const body = events.slice(page * size, (page + 1) * size).map((e) => (e.json ??= JSON.stringify(e.event)));
  return {
    status: 200,
    headers: { 'content-type': 'application/json', ...headers },
    body: `[${body.join(',')}]`,
  };
}

function flaky(error: ErrorReply, count: number, hangMs: number): Reply | undefined {
  switch (flakyOutcome(count)) {
    case 'hang':
      return { ...error(504, 'timeout', 'Upstream system did not answer in time'), delayMs: hangMs };
    case 'unavailable':
      return error(503, 'serviceUnavailable', 'The tracking service is temporarily unavailable');
    case 'rate_limited':
      return error(429, 'tooManyRequests', 'Rate limit exceeded', {
        'Retry-After': String(FLAKY_RETRY_AFTER_SECONDS),
      });
    case 'malformed':
      return {
        status: 200,
        headers: {
          'content-type': 'application/json',
          'API-Version': API_VERSION,
          'Current-Page': 'cGFnZT0w',
        },
        body: '[{"eventID":"3cecb101-7a1a-43a4-9d62-e88a131651e2","eventType":"TRANSPORT","eventClassifierCode":"AC',
      };
    case 'server_error':
      return error(500, 'internalServerError', 'Unexpected error in the tracking backend');
    default:
      return undefined;
  }
}

function without(params: URLSearchParams, ...names: string[]): URLSearchParams {
  const copy = new URLSearchParams(params);
  for (const n of names) copy.delete(n);
  return copy;
}
