import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { Included, type Resource } from '../../jsonapi/document.ts';
import { portResources, serializeVessel, terminalResources } from '../../reference/serializers.ts';
import { vesselsByIds } from '../../reference/vessels.ts';
import { shipmentIncludes } from '../include.ts';
import {
  type ContainerRow,
  containersByIds,
  eventSummaries,
  summarize,
  type TransportEventRow,
  transportEventsOfContainers,
} from './queries.ts';
import { serializeContainer, serializeTransportEvent } from './serializer.ts';

// JSON:API documents of containers and transport events with their includes, at most one query
// per include path. Used by the container and shipment routes and by webhook notification
// rendering, so nothing here knows HTTP.

/** Container resources for loaded rows: one query for all their transport event ids. */
export async function containerResources(
  db: Kysely<DB>,
  accountId: string,
  rows: ContainerRow[],
): Promise<Resource[]> {
  const events = await eventSummaries(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => serializeContainer(r, events.get(r.id)));
}

/** Containers and their includes, with at most one query per include path. */
export async function containersDocument(
  db: Kysely<DB>,
  accountId: string,
  rows: ContainerRow[],
  include: Set<string>,
): Promise<{ data: Resource[]; included: Resource[] }> {
  const included = new Included();
  let events: TransportEventRow[] = [];
  let data: Resource[];
  if (include.has('transport_events')) {
    events = await transportEventsOfContainers(
      db,
      accountId,
      rows.map((r) => r.id),
    );
    const summaries = summarize(events);
    data = rows.map((r) => serializeContainer(r, summaries.get(r.id)));
  } else {
    data = await containerResources(db, accountId, rows);
  }
  if (include.has('shipment')) {
    for (const r of await shipmentIncludes(
      db,
      accountId,
      rows.map((r) => r.shipment_id),
    ))
      included.add(r);
  }
  if (include.has('pod_terminal')) {
    for (const r of terminalResources(rows.map((r) => r.pod_terminal_id ?? r.shipment_pod_terminal_id)))
      included.add(r);
  }
  for (const e of events) included.add(serializeTransportEvent(e));
  return { data, included: included.items };
}

/** Resources related to transport events, for `include`. */
export async function eventIncludes(
  db: Kysely<DB>,
  accountId: string,
  events: TransportEventRow[],
  include: Set<string>,
): Promise<Resource[]> {
  const included = new Included();
  if (include.has('shipment')) {
    for (const r of await shipmentIncludes(
      db,
      accountId,
      events.map((e) => e.shipment_id),
    ))
      included.add(r);
  }
  if (include.has('container')) {
    const rows = await containersByIds(
      db,
      accountId,
      events.map((e) => e.container_id),
    );
    for (const r of await containerResources(db, accountId, rows)) included.add(r);
  }
  if (include.has('location'))
    for (const r of portResources(events.map((e) => e.location_locode))) included.add(r);
  if (include.has('terminal'))
    for (const r of terminalResources(events.map((e) => e.terminal_id))) included.add(r);
  if (include.has('vessel')) {
    for (const v of await vesselsByIds(
      db,
      events.map((e) => e.vessel_id),
    ))
      included.add(serializeVessel(v));
  }
  return included.items;
}
