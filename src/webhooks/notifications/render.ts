import { type Kysely, sql } from 'kysely';
import { customFieldResources } from '../../custom-fields/payload.ts';
import type { DB } from '../../db/schema.ts';
import { documentEventResources, representationOf } from '../../documents/webhook-include.ts';
import { iso, one, type Resource } from '../../jsonapi/resource.ts';
import { portByLocode } from '../../reference/data.ts';
import { portResources, serializeVessel, terminalResources } from '../../reference/serializers.ts';
import {
  containersByIds,
  eventSummaries,
  type TransportEventRow,
} from '../../shipments/containers/queries.ts';
import { serializeContainer, serializeTransportEvent } from '../../shipments/containers/serializer.ts';
import { shipmentIncludes } from '../../shipments/include.ts';
import { type TrackingRequest, trackingRequestsByIds } from '../../tracking-requests/queries.ts';
import { serializeTrackingRequest } from '../../tracking-requests/serializer.ts';

// The body a receiver gets: a JSON:API document whose `data` is the notification itself (its id
// is the idempotency key) and whose `included` carries the reference object and the shipment,
// container, ports, terminal and vessel it concerns, so most receivers need no follow-up GET.
//
// Bodies are rendered in batches (the delivery loop renders every notification of a claim at
// once): one query for the notifications, then one per kind of record for the whole batch
// (grouped by account, since every account-owned query filters by it), whatever the batch size.
// Each resource is serialized once per batch and the bodies are assembled from those pieces,
// byte for byte what JSON.stringify({data, included}) gives.

/** What rendering needs of a notification and its domain event (the claim returns it too). */
export interface NotificationRow {
  id: string;
  account_id: string;
  webhook_id: string | null;
  event: string;
  created_at: Date;
  reference_type: string;
  reference_id: string;
  shipment_id: string | null;
  container_id: string | null;
  changeset: unknown;
  domain_event_created_at: Date;
}

interface EstimatedEventRow {
  id: string;
  shipment_id: string;
  container_id: string | null;
  event: string;
  estimated_timestamp: Date;
  previous_timestamp: Date | null;
  location_locode: string | null;
  vessel_id: string | null;
  voyage_number: string | null;
  data_source: string;
  created_at: Date;
}

function notificationResource(n: NotificationRow): Resource {
  return {
    id: n.id,
    type: 'webhook_notification',
    attributes: { event: n.event, delivery_status: 'pending', created_at: iso(n.created_at) },
    relationships: {
      webhook: one('webhook', n.webhook_id),
      reference_object: { data: { type: n.reference_type, id: n.reference_id } },
    },
  };
}

function estimatedEventResource(e: EstimatedEventRow): Resource {
  return {
    id: e.id,
    type: 'estimated_event',
    attributes: {
      event: e.event,
      estimated_timestamp: iso(e.estimated_timestamp),
      previous_estimated_timestamp: iso(e.previous_timestamp),
      location_locode: e.location_locode,
      timezone: e.location_locode ? (portByLocode(e.location_locode)?.time_zone ?? null) : null,
      voyage_number: e.voyage_number,
      data_source: e.data_source,
      created_at: iso(e.created_at),
    },
    relationships: {
      shipment: one('shipment', e.shipment_id),
      container: one('container', e.container_id),
      port: one('port', e.location_locode ? portByLocode(e.location_locode)?.id : null),
      vessel: one('vessel', e.vessel_id),
    },
  };
}

const TRANSPORT_EVENT_COLUMNS = [
  'e.id',
  'e.shipment_id',
  'e.container_id',
  'e.key',
  'e.event',
  'e.timestamp',
  'e.timezone',
  'e.location_locode',
  'e.terminal_id',
  'e.vessel_id',
  'e.voyage_number',
  'e.data_source',
  'e.invalidated_at',
  'e.created_at',
  'e.updated_at',
] as const;

/** A reference record with its vessel (joined, so vessels cost no query of their own). */
type WithVessel<T> = T & { vessel_imo: string | null; vessel_name: string | null };

function vesselOf(r: WithVessel<{ vessel_id: string | null }>): Resource | null {
  return r.vessel_id && r.vessel_name !== null
    ? serializeVessel({ id: r.vessel_id, imo: r.vessel_imo, name: r.vessel_name })
    : null;
}

/** The records one account's notifications of a batch refer to, each loaded once. */
interface AccountRecords {
  trackingRequests: Map<string, TrackingRequest>;
  transportEvents: Map<string, WithVessel<TransportEventRow>>;
  shipments: Map<string, Resource>;
  containers: Map<string, Resource>;
  documents: Awaited<ReturnType<typeof documentEventResources>>;
}

async function loadAccountRecords(
  db: Kysely<DB>,
  accountId: string,
  rows: NotificationRow[],
): Promise<AccountRecords> {
  const ids = (type: string) => [
    ...new Set(rows.filter((n) => n.reference_type === type).map((n) => n.reference_id)),
  ];
  const trIds = ids('tracking_request');
  const teIds = ids('transport_event');
  const shipmentIds = [...new Set(rows.map((n) => n.shipment_id).filter((id): id is string => id !== null))];
  const containerIds = [
    ...new Set(rows.map((n) => n.container_id).filter((id): id is string => id !== null)),
  ];
  // Independent queries: sent side by side (one round trip of latency instead of five).
  const docEvents = rows.filter((n) => n.reference_type === 'document');
  const [trs, tes, shipments, containers, summaries, documents] = await Promise.all([
    trIds.length ? trackingRequestsByIds(db, accountId, trIds) : [],
    teIds.length
      ? db
          .selectFrom('transport_events as e')
          .leftJoin('vessels as v', 'v.id', 'e.vessel_id')
          .select(TRANSPORT_EVENT_COLUMNS)
          .select(['v.imo as vessel_imo', 'v.name as vessel_name'])
          .where('e.account_id', '=', accountId)
          .where(sql<boolean>`e.id = any(${teIds}::uuid[])`)
          .execute()
      : [],
    shipmentIds.length ? shipmentIncludes(db, accountId, shipmentIds) : [],
    containerIds.length ? containersByIds(db, accountId, containerIds) : [],
    containerIds.length ? eventSummaries(db, accountId, containerIds) : new Map(),
    documentEventResources(db, accountId, docEvents),
  ]);
  return {
    trackingRequests: new Map(trs.map((t) => [t.id, t])),
    transportEvents: new Map(tes.map((e) => [e.id, e as WithVessel<TransportEventRow>])),
    shipments: new Map(shipments.map((s) => [s.id, s])),
    containers: new Map(containers.map((c) => [c.id, serializeContainer(c, summaries.get(c.id))])),
    documents,
  };
}

/** A batch's loaded records, each serialized to JSON once however many bodies include it. */
class Pieces {
  readonly #json = new Map<string, string>();
  of(r: Resource): string {
    const key = `${r.type}:${r.id}`;
    let s = this.#json.get(key);
    if (s === undefined) {
      s = JSON.stringify(r);
      this.#json.set(key, s);
    }
    return s;
  }
}

/**
 * Renders the bodies of the given notifications: id -> body. Notifications that no longer exist
 * (their webhook was deleted) are missing from the result. A handful of queries per batch.
 */
export async function renderNotifications(db: Kysely<DB>, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows: NotificationRow[] = await db
    .selectFrom('webhook_notifications as n')
    .innerJoin('domain_events as d', 'd.id', 'n.domain_event_id')
    .select([
      'n.id',
      'n.account_id',
      'n.webhook_id',
      'n.event',
      'n.created_at',
      'd.reference_type',
      'd.reference_id',
      'd.shipment_id',
      'd.container_id',
      'd.changeset',
      'd.created_at as domain_event_created_at',
    ])
    .where(sql<boolean>`n.id = any(${[...new Set(ids)]}::uuid[])`)
    .execute();
  return renderRows(db, rows);
}

/** The bodies of notifications whose rows are at hand (the claim returns them): id -> body. */
export async function renderRows(db: Kysely<DB>, rows: NotificationRow[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (rows.length === 0) return out;

  const byAccount = new Map<string, NotificationRow[]>();
  for (const n of rows) {
    const list = byAccount.get(n.account_id);
    if (list) list.push(n);
    else byAccount.set(n.account_id, [n]);
  }
  const estimatedIds = [
    ...new Set(rows.filter((n) => n.reference_type === 'estimated_event').map((n) => n.reference_id)),
  ];
  const [accounts, estimatedRows] = await Promise.all([
    Promise.all(
      [...byAccount].map(async ([acct, list]) => [acct, await loadAccountRecords(db, acct, list)] as const),
    ),
    estimatedIds.length
      ? db
          .selectFrom('estimated_events as e')
          .leftJoin('vessels as v', 'v.id', 'e.vessel_id')
          .select([
            'e.id',
            'e.shipment_id',
            'e.container_id',
            'e.event',
            'e.estimated_timestamp',
            'e.previous_timestamp',
            'e.location_locode',
            'e.vessel_id',
            'e.voyage_number',
            'e.data_source',
            'e.created_at',
            'v.imo as vessel_imo',
            'v.name as vessel_name',
          ])
          .where(sql<boolean>`e.id = any(${estimatedIds}::uuid[])`)
          .execute()
      : [],
  ]);
  const records = new Map(accounts);
  // issue 13: the custom fields of each payload's shipment, container and tracking request.
  const customFields = await customFieldResources(
    db,
    rows.flatMap((n) => [
      n.shipment_id,
      n.container_id,
      n.reference_type === 'tracking_request' ? n.reference_id : null,
    ]),
  );
  const estimated = new Map<string, WithVessel<EstimatedEventRow>>(estimatedRows.map((e) => [e.id, e]));

  const pieces = new Pieces();
  for (const n of rows) {
    const r = records.get(n.account_id)!;
    const included: string[] = [];
    const seen = new Set<string>();
    const add = (res: Resource | null | undefined) => {
      if (!res) return;
      const key = `${res.type}:${res.id}`;
      if (seen.has(key)) return;
      seen.add(key);
      included.push(pieces.of(res));
    };
    const locodes: Array<string | null> = [];
    const terminals: Array<string | null> = [];
    let vessel: Resource | null = null;

    switch (n.reference_type) {
      case 'tracking_request': {
        const tr = r.trackingRequests.get(n.reference_id);
        if (tr) add(serializeTrackingRequest(tr));
        break;
      }
      case 'transport_event': {
        const e = r.transportEvents.get(n.reference_id);
        if (e) {
          add(serializeTransportEvent(e));
          locodes.push(e.location_locode);
          terminals.push(e.terminal_id);
          vessel = vesselOf(e);
        }
        break;
      }
      case 'estimated_event': {
        const e = estimated.get(n.reference_id);
        if (e) {
          locodes.push(e.location_locode);
          vessel = vesselOf(e);
          add(estimatedEventResource(e));
        }
        break;
      }
      case 'document': {
        const d = r.documents.get(n.reference_id);
        if (d) {
          add(d.document);
          const repId = representationOf(n.changeset);
          add(repId ? d.representations.get(repId) : undefined);
        }
        break;
      }
      case 'container_created_event':
      case 'container_updated_event':
        add({
          id: n.reference_id,
          type: n.reference_type,
          attributes: {
            changeset: n.changeset ?? {},
            timestamp: iso(n.domain_event_created_at),
            timezone: null,
            data_source: 'shipping_line',
          },
          relationships: { container: one('container', n.container_id), terminal: { data: null } },
        });
        break;
      case 'container_pod_terminal_changed_event': {
        // The new terminal is the change's last value (engine/diff.ts).
        const change = (n.changeset as Record<string, unknown> | null)?.pod_terminal_id;
        const terminalId = Array.isArray(change) ? change[1] : null;
        add({
          id: n.reference_id,
          type: n.reference_type,
          attributes: { data_source: 'shipping_line', timestamp: iso(n.domain_event_created_at) },
          relationships: {
            container: one('container', n.container_id),
            shipment: one('shipment', n.shipment_id),
            terminal: one('terminal', typeof terminalId === 'string' ? terminalId : null),
          },
        });
        if (typeof terminalId === 'string') terminals.push(terminalId);
        break;
      }
    }

    const s = n.shipment_id ? r.shipments.get(n.shipment_id) : undefined;
    if (s) {
      add(s);
      const a = s.attributes as Record<string, string | null>;
      locodes.push(
        a.port_of_lading_locode ?? null,
        a.port_of_discharge_locode ?? null,
        a.destination_locode ?? null,
      );
      terminals.push((s.relationships?.pod_terminal?.data as { id: string } | null)?.id ?? null);
    }
    if (n.container_id) add(r.containers.get(n.container_id));
    for (const id of [
      n.shipment_id,
      n.container_id,
      n.reference_type === 'tracking_request' ? n.reference_id : null,
    ])
      for (const cf of (id && customFields.get(id)) || []) add(cf);
    for (const p of portResources(locodes)) add(p);
    for (const t of terminalResources(terminals)) add(t);
    add(vessel);
    out.set(n.id, `{"data":${JSON.stringify(notificationResource(n))},"included":[${included.join(',')}]}`);
  }
  return out;
}

/** The body of one notification (see renderNotifications). */
export async function renderNotification(db: Kysely<DB>, notificationId: string): Promise<string> {
  const body = (await renderNotifications(db, [notificationId])).get(notificationId);
  if (body === undefined) throw new Error(`webhook notification ${notificationId} not found`);
  return body;
}
