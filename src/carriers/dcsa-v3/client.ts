// HTTP client for DCSA T&T 3.0.0 `GET {base_url}/events`. The only 3.0.0 code that does network
// I/O; the walk (auth, budget, retries, paging, status mapping) is the shared dcsa-http.ts.
// 3.0.0's own parts: the body is `{events: [...]}`, the next page is named by Next-Page-Cursor
// and asked with `cursor` plus every original filter, the API-Version is the full version, and
// an empty list is the standard "not found" (other answers per the entry's `not_found`).

import { type CarrierProtocol, PROTOCOL_DEFAULTS } from '../../config/carrier-protocol.ts';
import { createPagedFetch, type FetchResult, type PagedFetchOptions, pageProtocol } from '../dcsa-http.ts';

export type DcsaV3Filter = 'transportDocumentReference' | 'carrierBookingReference' | 'equipmentReference';

export interface DcsaV3Query {
  /** Reference filters, one of the standard's combinations. */
  filters: Partial<Record<DcsaV3Filter, string>>;
  /** Only events updated at or after this instant (eventUpdatedDateTimeMin). */
  updatedMin?: string;
}

export interface DcsaV3ClientOptions extends PagedFetchOptions {
  /** Carrier base; `/events` is appended unless the base already ends in /events. */
  baseUrl: string;
  /** `limit` query parameter (default 100). */
  pageSize?: number;
  /** The carrier's differences from the standard (default: none). */
  protocol?: CarrierProtocol;
}

export interface DcsaV3Client {
  fetchEvents(query: DcsaV3Query, signal?: AbortSignal): Promise<FetchResult>;
}

function eventsOf(json: unknown): unknown[] | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const events = (json as { events?: unknown }).events;
  // A carrier that leaves the list out of an empty answer has still answered "none".
  if (events === undefined) return [];
  return Array.isArray(events) ? events : null;
}

export function eventsUrlV3(baseUrl: string): URL {
  const base = baseUrl.replace(/\/+$/, '');
  return new URL(/\/events$/.test(base) ? base : `${base}/events`);
}

export function createDcsaV3Client(options: DcsaV3ClientOptions): DcsaV3Client {
  const pageSize = options.pageSize ?? 100;
  const endpoint = eventsUrlV3(options.baseUrl);
  const protocol = options.protocol ?? PROTOCOL_DEFAULTS['dcsa-tnt-v3'];
  const body = { events: eventsOf, shape: 'an object with an events list' };
  const walk = createPagedFetch(options, pageProtocol(protocol, body, ['Next-Page-Cursor']));
  return {
    fetchEvents(query, signal) {
      const first = new URL(endpoint);
      for (const [name, value] of Object.entries(query.filters))
        if (value) first.searchParams.set(name, value);
      if (query.updatedMin) first.searchParams.set('eventUpdatedDateTimeMin', query.updatedMin);
      first.searchParams.set('limit', String(pageSize));
      return walk(first, signal);
    },
  };
}
