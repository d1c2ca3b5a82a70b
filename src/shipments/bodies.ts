import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { Included, type Resource } from '../jsonapi/resource.ts';
import { portResources, terminalResources } from '../reference/serializers.ts';
import { containerResources } from './containers/bodies.ts';
import { containersByShipmentIds } from './containers/queries.ts';
import { shipmentResources } from './include.ts';
import type { ShipmentRow } from './queries.ts';

/**
 * A page of shipments as a JSON:API body: at most one query per include path. With
 * `include=containers` the containers are loaded first and their ids serve the `containers`
 * relationship too, so that include costs no extra query.
 */
export async function shipmentsBody(
  db: Kysely<DB>,
  accountId: string,
  rows: ShipmentRow[],
  include: Set<string>,
): Promise<{ data: Resource[]; included?: Resource[] }> {
  const included = new Included();
  let containerIds: Map<string, string[]> | undefined;
  if (include.has('containers')) {
    const containers = await containersByShipmentIds(
      db,
      accountId,
      rows.map((r) => r.id),
    );
    containerIds = new Map();
    for (const c of containers) {
      const list = containerIds.get(c.shipment_id) ?? [];
      list.push(c.id);
      containerIds.set(c.shipment_id, list);
    }
    for (const r of await containerResources(db, accountId, containers)) included.add(r);
  }
  const data = await shipmentResources(db, accountId, rows, containerIds);
  const ports: Array<string | null> = [];
  if (include.has('port_of_lading')) ports.push(...rows.map((r) => r.port_of_lading_locode));
  if (include.has('port_of_discharge')) ports.push(...rows.map((r) => r.port_of_discharge_locode));
  if (include.has('destination')) ports.push(...rows.map((r) => r.destination_locode));
  for (const r of portResources(ports)) included.add(r);
  const terminals: Array<string | null> = [];
  if (include.has('pod_terminal')) terminals.push(...rows.map((r) => r.pod_terminal_id));
  if (include.has('destination_terminal')) terminals.push(...rows.map((r) => r.destination_terminal_id));
  for (const r of terminalResources(terminals)) included.add(r);
  return include.size ? { data, included: included.items } : { data };
}
