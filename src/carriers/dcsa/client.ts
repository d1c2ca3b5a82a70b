// HTTP client for DCSA T&T v2.2 `GET /v2/events` (CARRIER-NOTES §1). The only 2.2 code that does
// network I/O; the walk itself (auth, budget, retries, paging, status mapping) is the shared
// dcsa-http.ts. 2.2's own parts: the body is a JSON array, the next page is named by `Next-Page`
// (or `Next-Page-Cursor`), and a 404 or 400 on the first page means the number is unknown.

import { type CarrierProtocol, PROTOCOL_DEFAULTS } from '../../config/carrier-protocol.ts';
import type { AuthProvider } from '../auth.ts';
import { createPagedFetch, type FetchResult, type PagedFetchOptions, pageProtocol } from '../dcsa-http.ts';
import type { RateBudget } from '../rate-budget.ts';

export type { FetchResult } from '../dcsa-http.ts';

export type DcsaReferenceFilter =
  | 'transportDocumentReference'
  | 'carrierBookingReference'
  | 'equipmentReference';

export interface DcsaClientOptions extends PagedFetchOptions {
  /** Carrier base; `/v2/events` is appended (or `/events` when the base already ends in /v2). */
  baseUrl: string;
  auth: AuthProvider;
  budget?: RateBudget;
  /** `limit` query parameter (default 100). */
  pageSize?: number;
  /** The carrier's differences from the standard (default: none). */
  protocol?: CarrierProtocol;
}

export interface DcsaClient {
  fetchEvents(filter: DcsaReferenceFilter, value: string, signal?: AbortSignal): Promise<FetchResult>;
  /** Several reference filters at once (ANDed by the carrier), e.g. a booking and a container. */
  fetchByFilters(
    filters: Partial<Record<DcsaReferenceFilter, string>>,
    signal?: AbortSignal,
  ): Promise<FetchResult>;
}

const BODY = { events: (json: unknown) => (Array.isArray(json) ? json : null), shape: 'a JSON array' };

export function eventsUrl(baseUrl: string): URL {
  const base = baseUrl.replace(/\/+$/, '');
  return new URL(/\/v2$/.test(base) ? `${base}/events` : `${base}/v2/events`);
}

export function createDcsaClient(options: DcsaClientOptions): DcsaClient {
  const pageSize = options.pageSize ?? 100;
  const endpoint = eventsUrl(options.baseUrl);
  const protocol = options.protocol ?? PROTOCOL_DEFAULTS['dcsa-tnt-v2'];
  const walk = createPagedFetch(options, pageProtocol(protocol, BODY, ['Next-Page', 'Next-Page-Cursor']));
  const fetchByFilters: DcsaClient['fetchByFilters'] = (filters, signal) => {
    const first = new URL(endpoint);
    for (const [name, value] of Object.entries(filters)) if (value) first.searchParams.set(name, value);
    first.searchParams.set('limit', String(pageSize));
    return walk(first, signal);
  };
  return {
    fetchEvents: (filter, value, signal) => fetchByFilters({ [filter]: value }, signal),
    fetchByFilters,
  };
}
