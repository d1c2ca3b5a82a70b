import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { resumeContainerTracking, stopContainerTracking } from '../../engine/container-tracking.ts';
import { ApiError, badParameter, notFound } from '../../errors.ts';
import type { Resource } from '../../jsonapi/resource.ts';
import { shippingLineByScac } from '../../reference/data.ts';
import { vesselsByImoOrName } from '../../reference/vessels.ts';
import { type Page, pageOffset } from '../../util/page.ts';
import { isUuid } from '../../util/uuid.ts';
import { parseTimeSort } from '../time-sort.ts';
import { containerResources, containersBody, eventIncludes } from './bodies.ts';
import {
  type ContainerFilter,
  type ContainerRow,
  findContainer,
  findTransportEvent,
  listContainers,
  listRawEvents,
  listTransportEvents,
  rawEventShipment,
  requestRefresh,
  type TransportEventRow,
  transportEventsOfContainers,
} from './queries.ts';
import { serializeRawEvent, serializeTransportEvent } from './serializer.ts';

// Container and transport event use cases: plain functions over (db, account, validated input)
// returning rows or resources, or throwing catalogue errors. Routes only translate HTTP.

export { SORTS } from '../time-sort.ts';

export type ContainerSort = ContainerFilter['sort'];

/** `sort=` of the list (see time-sort.ts). */
export const containerSort: (raw: string | undefined) => ContainerSort = parseTimeSort;

/** The shipment and number filters of the list: a shipment id must be a UUID (400 otherwise). */
export function containerListFilter(
  shipmentId: string | undefined,
  number: string | undefined,
): { shipment_id?: string; number?: string } {
  if (shipmentId !== undefined && !isUuid(shipmentId)) {
    throw badParameter('filter[shipment_id]', `filter[shipment_id] must be a shipment id (UUID).`);
  }
  return { shipment_id: shipmentId, number: number?.replace(/\s+/g, '').toUpperCase() || undefined };
}

/** One page of the account's containers with their includes. */
export async function listContainersOf(
  db: Kysely<DB>,
  accountId: string,
  filter: ContainerFilter,
  page: Page,
  include: Set<string>,
): Promise<{ data: Resource[]; included: Resource[]; total: number }> {
  const { rows, total } = await listContainers(db, accountId, filter, page);
  return { ...(await containersBody(db, accountId, rows, include)), total };
}

/** The 404 of a container id that is not the account's. */
export const containerNotFound = () => notFound('No container with this id.');

async function containerOr404(db: Kysely<DB>, accountId: string, id: string): Promise<ContainerRow> {
  const c = await findContainer(db, accountId, id);
  if (!c) throw containerNotFound();
  return c;
}

/** One of the account's containers (404 otherwise) with its includes. */
export async function getContainer(db: Kysely<DB>, accountId: string, id: string, include: Set<string>) {
  const c = await containerOr404(db, accountId, id);
  const doc = await containersBody(db, accountId, [c], include);
  return { data: doc.data[0], included: doc.included };
}

/** One page of a container's transport events, with their includes when any were asked for. */
export async function containerTransportEvents(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  page: Page,
  include: Set<string>,
): Promise<{ containerId: string; data: Resource[]; included?: Resource[]; total: number }> {
  const c = await containerOr404(db, accountId, id);
  const { rows, total } = await listTransportEvents(db, accountId, c.id, page);
  return {
    containerId: c.id,
    data: rows.map(serializeTransportEvent),
    ...(include.size ? { included: await eventIncludes(db, accountId, rows, include) } : {}),
    total,
  };
}

/** One page of a container's raw carrier events, linked to its transport events and known vessels. */
export async function containerRawEvents(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  page: Page,
): Promise<{ containerId: string; data: Resource[]; total: number }> {
  const c = await containerOr404(db, accountId, id);
  const [{ rows, total }, events, shipment] = await Promise.all([
    listRawEvents(db, accountId, c.shipment_id, c.number, page),
    transportEventsOfContainers(db, accountId, [c.id]),
    rawEventShipment(db, c.shipment_id),
  ]);
  const line = shipment ? shippingLineByScac(shipment.scac) : undefined;
  const vessels = await vesselsByImoOrName(
    db,
    rows.flatMap((r) => (r.vessel_imo ? [r.vessel_imo] : [])),
    rows.flatMap((r) => (!r.vessel_imo && r.vessel_name ? [r.vessel_name] : [])),
  );
  const byImo = new Map(vessels.filter((v) => v.imo).map((v) => [v.imo!, v.id]));
  const byName = new Map(vessels.filter((v) => v.name_key).map((v) => [v.name_key!, v.id]));
  const offset = pageOffset(page);
  return {
    containerId: c.id,
    data: rows.map((r, i) =>
      serializeRawEvent(r, i, {
        offset,
        transportEvents: events,
        containerId: c.id,
        provider: shipment ? { code: shipment.scac, name: line?.short_name ?? line?.name ?? null } : null,
        ports: {
          pol: shipment?.port_of_lading_locode ?? null,
          pod: shipment?.port_of_discharge_locode ?? null,
          destination: shipment?.destination_locode ?? null,
        },
        vesselIdOf: (imo, name) =>
          (imo ? byImo.get(imo) : name ? byName.get(name.toUpperCase()) : undefined) ?? null,
      }),
    ),
    total,
  };
}

/**
 * Makes the container's shipment due for a refresh now and wakes the refresher; a stopped
 * shipment is a 422 (resume it first).
 */
export async function refreshContainer(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  notifyWork?: (kind: 'refresh') => void,
): Promise<Resource> {
  const c = await containerOr404(db, accountId, id);
  if (c.tracking_stopped_at !== null) {
    throw new ApiError(422, [
      {
        detail: `Tracking of this container has stopped, so it cannot be refreshed. Resume it first with PATCH /v2/containers/${c.id}/resume_tracking.`,
        code: 'tracking_stopped',
      },
    ]);
  }
  const outcome = await requestRefresh(db, accountId, c.shipment_id);
  if (outcome === 'stopped') {
    throw new ApiError(422, [
      {
        detail: `Tracking of this container's shipment has stopped, so it cannot be refreshed. Resume it first with PATCH /v2/shipments/${c.shipment_id}/resume_tracking.`,
        code: 'tracking_stopped',
      },
    ]);
  }
  notifyWork?.('refresh');
  const [data] = await containerResources(db, accountId, [c]);
  return data!;
}

/** Who to wake after a stop or resume: the webhook worker (new domain events) or the refresher. */
export type NotifyWork = (kind: 'refresh' | 'webhook') => void;

/**
 * Stops tracking one container at the user's request (idempotent: a second stop keeps the first
 * one's time and reason). Its shipment stops too when it was the last container still tracked.
 */
export async function stopContainer(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  notifyWork?: NotifyWork,
): Promise<Resource> {
  if (!isUuid(id)) throw containerNotFound();
  const change = await db
    .transaction()
    .execute((tx) => stopContainerTracking(tx, accountId, id, 'user_request'));
  if (!change) throw containerNotFound();
  if (change.changed) notifyWork?.('webhook');
  return containerResource(db, accountId, id);
}

/**
 * Resumes tracking one container (a container that is not stopped is left as it is); its
 * shipment is due for a refresh now, and resumes too when it stopped because all its containers had.
 */
export async function resumeContainer(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  notifyWork?: NotifyWork,
): Promise<Resource> {
  if (!isUuid(id)) throw containerNotFound();
  const change = await db.transaction().execute((tx) => resumeContainerTracking(tx, accountId, id));
  if (!change) throw containerNotFound();
  if (change.changed) {
    notifyWork?.('webhook');
    notifyWork?.('refresh');
  }
  return containerResource(db, accountId, id);
}

async function containerResource(db: Kysely<DB>, accountId: string, id: string): Promise<Resource> {
  const [data] = await containerResources(db, accountId, [await containerOr404(db, accountId, id)]);
  return data!;
}

/** One of the account's transport events (404 otherwise), with its includes when any were asked for. */
export async function getTransportEvent(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  include: Set<string>,
): Promise<{ data: Resource; included?: Resource[] }> {
  const e: TransportEventRow | undefined = isUuid(id)
    ? await findTransportEvent(db, accountId, id)
    : undefined;
  if (!e) throw notFound('No transport event with this id.');
  return {
    data: serializeTransportEvent(e),
    ...(include.size ? { included: await eventIncludes(db, accountId, [e], include) } : {}),
  };
}
