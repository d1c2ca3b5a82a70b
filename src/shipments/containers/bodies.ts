import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { type IncludeBuilder, Included, type Resource } from '../../jsonapi/resource.ts';
import { portResources, serializeVessel, terminalResources } from '../../reference/serializers.ts';
import { type Vessel, vesselsByIds } from '../../reference/vessels.ts';
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

// JSON:API bodies of containers and transport events with their includes, at most one query
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

/** Container resources of the account's containers among `ids` (for includes). */
export async function containerResourcesByIds(
  db: Kysely<DB>,
  accountId: string,
  ids: string[],
): Promise<Resource[]> {
  return containerResources(db, accountId, await containersByIds(db, accountId, ids));
}

/** Containers and their includes, with at most one query per include path. */
export async function containersBody(
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
  if (include.has('shipment'))
    included.addAll(
      await shipmentIncludes(
        db,
        accountId,
        rows.map((r) => r.shipment_id),
      ),
    );
  if (include.has('pod_terminal'))
    included.addAll(terminalResources(rows.map((r) => r.pod_terminal_id ?? r.shipment_pod_terminal_id)));
  included.addAll(events.map((r) => serializeTransportEvent(r)));
  return { data, included: included.items };
}

/** Resources related to transport events, for `include`. */
export const eventIncludes: IncludeBuilder<TransportEventRow> = async (db, accountId, events, include) => {
  const included = new Included();
  if (include.has('shipment'))
    included.addAll(
      await shipmentIncludes(
        db,
        accountId,
        events.map((e) => e.shipment_id),
      ),
    );
  if (include.has('container'))
    included.addAll(
      await containerResourcesByIds(
        db,
        accountId,
        events.map((e) => e.container_id),
      ),
    );
  if (include.has('location')) included.addAll(portResources(events.map((e) => e.location_locode)));
  if (include.has('terminal')) included.addAll(terminalResources(events.map((e) => e.terminal_id)));
  if (include.has('vessel')) {
    // In the order the events name them (the query by ids has none of its own).
    const rows = await vesselsByIds(
      db,
      events.map((e) => e.vessel_id),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    included.addAll(events.map((e) => (e.vessel_id ? byId.get(e.vessel_id) : undefined)).map(vesselResource));
  }
  return included.items;
};

const vesselResource = (v: Vessel | undefined) => (v ? serializeVessel(v) : undefined);
