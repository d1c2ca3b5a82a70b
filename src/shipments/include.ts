import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Resource } from '../http/jsonapi.ts';

/** Shipment resources for `include=tracked_object`, only of the caller's account. */
export async function shipmentIncludes(
  _db: Kysely<DB>,
  _accountId: string,
  ids: Array<string | null>,
): Promise<Resource[]> {
  // Shipments arrive with the monitoring engine; until one is linked there is nothing to include.
  if (ids.every((id) => id === null)) return [];
  return [];
}
