import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { badParameter } from '../errors.ts';
import {
  type ContainerHit,
  PER_TYPE,
  type RequestHit,
  type ShipmentHit,
  searchContainers,
  searchRequests,
  searchShipments,
  type Term,
} from './queries.ts';

// GET /v2/search: the account's shipments, containers ("cargo") and tracking requests matched
// by number, reference number, tag or custom field value; case-insensitive, partial. Ranked:
// exact number matches first, then shipments, containers, tracking requests; within a type,
// prefix matches before other partial ones, then the most recently updated. At most 25. A term
// of 1 or 2 characters matches whole numbers only (no index serves shorter partial matches).

export const MAX_QUERY_LENGTH = 200;

export type SearchHit =
  | { kind: 'shipment'; exact: boolean; row: ShipmentHit }
  | { kind: 'cargo'; exact: boolean; row: ContainerHit }
  | { kind: 'tracking_request'; exact: boolean; row: RequestHit };

const TYPE_ORDER = { shipment: 0, cargo: 1, tracking_request: 2 } as const;

export function termOf(raw: string | undefined): Term {
  const query = raw?.trim() ?? '';
  if (query === '') throw badParameter('query', 'query is required and must not be blank.');
  if (query.length > MAX_QUERY_LENGTH) {
    throw badParameter('query', `query must be at most ${MAX_QUERY_LENGTH} characters.`);
  }
  const escaped = query.replace(/[\\%_]/g, (c) => `\\${c}`);
  const digits = (query.match(/[0-9]+/g) ?? []).reduce((x, y) => (y.length > x.length ? y : x), '');
  return {
    exact: query.replace(/\s+/g, '').toUpperCase(),
    pattern: `%${escaped}%`,
    prefix: `${escaped}%`,
    // The digits select; the letters of a number are a prefix most rows share (queries.ts `like`).
    indexPattern:
      query.length < 3 ? null : digits.length >= 3 && digits !== query ? `%${digits}%` : `%${escaped}%`,
  };
}

export async function search(
  db: Kysely<DB>,
  accountId: string,
  raw: string | undefined,
): Promise<SearchHit[]> {
  const t = termOf(raw);
  const [shipments, containers, requests] = await Promise.all([
    searchShipments(db, accountId, t),
    searchContainers(db, accountId, t),
    searchRequests(db, accountId, t),
  ]);
  const hits: SearchHit[] = [
    ...shipments.map((row) => ({
      kind: 'shipment' as const,
      exact: row.number === t.exact || row.normalized_number === t.exact,
      row,
    })),
    ...containers.map((row) => ({ kind: 'cargo' as const, exact: row.number === t.exact, row })),
    ...requests.map((row) => ({ kind: 'tracking_request' as const, exact: row.number === t.exact, row })),
  ];
  // Array.prototype.sort is stable: each type keeps the order its query gave.
  hits.sort((x, y) => Number(y.exact) - Number(x.exact) || TYPE_ORDER[x.kind] - TYPE_ORDER[y.kind]);
  return hits.slice(0, PER_TYPE);
}
