import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { containersByIds, eventSummaries, findTransportEvent, vesselsByIds } from '../containers/queries.ts';
import { serializeContainer, serializeTransportEvent } from '../containers/serializer.ts';
import type { DB } from '../db/schema.ts';
import { Included, iso, one, type Resource } from '../http/jsonapi.ts';
import { portByLocode } from '../reference/data.ts';
import { portResources, serializeVessel, terminalResources } from '../reference/serializers.ts';
import { shipmentIncludes } from '../shipments/include.ts';
import { findTrackingRequest } from '../tracking-requests/queries.ts';
import { serializeTrackingRequest } from '../tracking-requests/serializer.ts';

// The body a receiver gets: a JSON:API document whose `data` is the notification itself (its id
// is the idempotency key) and whose `included` carries the reference object and the shipment,
// container, ports, terminal and vessel it concerns, so most receivers need no follow-up GET.

interface NotificationRow {
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

export async function renderNotification(db: Kysely<DB>, notificationId: string): Promise<string> {
  const n = await db
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
    .where('n.id', '=', notificationId)
    .executeTakeFirstOrThrow();
  const included = new Included();
  const acct = n.account_id;
  const locodes: Array<string | null> = [];
  const terminals: Array<string | null> = [];
  const vessels: Array<string | null> = [];

  switch (n.reference_type) {
    case 'tracking_request': {
      const tr = await findTrackingRequest(db, acct, n.reference_id);
      if (tr) included.add(serializeTrackingRequest(tr));
      break;
    }
    case 'transport_event': {
      const e = await findTransportEvent(db, acct, n.reference_id);
      if (e) {
        included.add(serializeTransportEvent(e));
        locodes.push(e.location_locode);
        terminals.push(e.terminal_id);
        vessels.push(e.vessel_id);
      }
      break;
    }
    case 'estimated_event': {
      const e = await db
        .selectFrom('estimated_events')
        .selectAll()
        .where('id', '=', n.reference_id)
        .executeTakeFirst();
      if (e) {
        locodes.push(e.location_locode);
        vessels.push(e.vessel_id);
        included.add({
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
        });
      }
      break;
    }
    case 'container_created_event':
    case 'container_updated_event':
      included.add({
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
  }

  if (n.shipment_id) {
    for (const s of await shipmentIncludes(db, acct, [n.shipment_id])) {
      included.add(s);
      const a = s.attributes as Record<string, string | null>;
      locodes.push(
        a.port_of_lading_locode ?? null,
        a.port_of_discharge_locode ?? null,
        a.destination_locode ?? null,
      );
      terminals.push((s.relationships?.pod_terminal?.data as { id: string } | null)?.id ?? null);
    }
  }
  if (n.container_id) {
    const rows = await containersByIds(db, acct, [n.container_id]);
    const summaries = await eventSummaries(db, acct, [n.container_id]);
    for (const c of rows) included.add(serializeContainer(c, summaries.get(c.id)));
  }
  for (const p of portResources(locodes)) included.add(p);
  for (const t of terminalResources(terminals)) included.add(t);
  for (const v of await vesselsByIds(db, vessels)) included.add(serializeVessel(v));
  return JSON.stringify({ data: notificationResource(n), included: included.items });
}

/** An example body for an event: realistic shapes, made-up ids (trigger and examples endpoints). */
export function sampleBody(event: string, ids: { notificationId: string; webhookId: string | null }): string {
  const now = new Date();
  const shipmentId = randomUUID();
  const containerId = randomUUID();
  const rotterdam = portByLocode('NLRTM');
  const shanghai = portByLocode('CNSGH');
  const isRequest = event.startsWith('tracking_request.');
  const isEstimate = event.includes('.estimated.');
  const isContainerChange = event === 'container.created' || event === 'container.updated';
  const referenceType = isRequest
    ? 'tracking_request'
    : isEstimate
      ? 'estimated_event'
      : isContainerChange
        ? event === 'container.created'
          ? 'container_created_event'
          : 'container_updated_event'
        : 'transport_event';
  const referenceId = randomUUID();
  const included: Resource[] = [];
  if (isRequest) {
    included.push(
      serializeTrackingRequest({
        id: referenceId,
        request_number: 'SIMBL1C000001',
        request_type: 'bill_of_lading',
        scac: 'TEST',
        ref_numbers: [],
        shipment_tags: [],
        status:
          event === 'tracking_request.failed'
            ? 'failed'
            : event === 'tracking_request.awaiting_manifest'
              ? 'awaiting_manifest'
              : event === 'tracking_request.tracking_stopped'
                ? 'tracking_stopped'
                : 'created',
        failed_reason: event === 'tracking_request.failed' ? 'not_found' : null,
        is_retrying: false,
        retry_count: null,
        shipment_id:
          event === 'tracking_request.failed' || event === 'tracking_request.awaiting_manifest'
            ? null
            : shipmentId,
        created_at: now,
        updated_at: now,
        next_attempt_at: null,
      }),
    );
  } else if (isEstimate) {
    included.push({
      id: referenceId,
      type: 'estimated_event',
      attributes: {
        event,
        estimated_timestamp: new Date(now.getTime() + 5 * 86_400_000).toISOString(),
        previous_estimated_timestamp: new Date(now.getTime() + 4 * 86_400_000).toISOString(),
        location_locode: 'NLRTM',
        timezone: rotterdam?.time_zone ?? null,
        voyage_number: '512W',
        data_source: 'shipping_line',
        created_at: now.toISOString(),
      },
      relationships: {
        shipment: one('shipment', shipmentId),
        container: one('container', event.startsWith('container.') ? containerId : null),
        port: one('port', rotterdam?.id),
        vessel: { data: null },
      },
    });
  } else if (isContainerChange) {
    included.push({
      id: referenceId,
      type: referenceType,
      attributes: {
        changeset: event === 'container.updated' ? { current_status: ['on_ship', 'grounded'] } : {},
        timestamp: now.toISOString(),
        timezone: null,
        data_source: 'shipping_line',
      },
      relationships: { container: one('container', containerId), terminal: { data: null } },
    });
  } else {
    included.push({
      id: referenceId,
      type: 'transport_event',
      attributes: {
        event,
        created_at: now.toISOString(),
        voyage_number: '512W',
        timestamp: now.toISOString(),
        timezone: rotterdam?.time_zone ?? null,
        location_locode: 'NLRTM',
        data_source: 'shipping_line',
      },
      relationships: {
        shipment: one('shipment', shipmentId),
        container: one('container', containerId),
        location: one('port', rotterdam?.id),
        terminal: { data: null },
        vessel: { data: null },
      },
    });
  }
  included.push(...portResources([shanghai?.locode ?? null, rotterdam?.locode ?? null]));
  return JSON.stringify({
    data: {
      id: ids.notificationId,
      type: 'webhook_notification',
      attributes: { event, delivery_status: 'pending', created_at: now.toISOString() },
      relationships: {
        webhook: one('webhook', ids.webhookId),
        reference_object: { data: { type: referenceType, id: referenceId } },
      },
    },
    included,
  });
}
