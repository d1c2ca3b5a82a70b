import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Resource } from '../jsonapi/resource.ts';
import { containerIdsByShipment } from './containers/queries.ts';
import { type ShipmentRow, shipmentsByIds } from './queries.ts';
import { serializeShipment } from './serializer.ts';

/**
 * Shipment resources for rows already loaded: one query for all their container ids, none when
 * the caller has loaded the containers already (`include=containers`) and passes their ids.
 */
export async function shipmentResources(
  db: Kysely<DB>,
  accountId: string,
  rows: ShipmentRow[],
  knownContainerIds?: Map<string, string[]>,
): Promise<Resource[]> {
  const containerIds =
    knownContainerIds ??
    (await containerIdsByShipment(
      db,
      accountId,
      rows.map((r) => r.id),
    ));
  return rows.map((r) => serializeShipment(r, containerIds.get(r.id) ?? []));
}

/**
 * Shipment resources for `include=tracked_object`, `include=shipment` and the like: only the
 * caller's account's shipments (others' ids are skipped), in the order of `ids`. Two queries.
 */
export async function shipmentIncludes(
  db: Kysely<DB>,
  accountId: string,
  ids: Array<string | null>,
): Promise<Resource[]> {
  const rows = await shipmentsByIds(db, accountId, ids);
  if (rows.length === 0) return [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ordered: ShipmentRow[] = [];
  for (const id of new Set(ids)) {
    const r = id ? byId.get(id) : undefined;
    if (r) ordered.push(r);
  }
  return shipmentResources(db, accountId, ordered);
}
