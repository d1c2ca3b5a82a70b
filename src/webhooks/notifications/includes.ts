import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { Included, type Resource } from '../../jsonapi/document.ts';
import { containerResources } from '../../shipments/containers/documents.ts';
import { containersByIds } from '../../shipments/containers/queries.ts';
import { serializeTransportEvent } from '../../shipments/containers/serializer.ts';
import { trackingRequestsByIds } from '../../tracking-requests/queries.ts';
import { serializeTrackingRequest } from '../../tracking-requests/serializer.ts';
import { webhooksByIds } from '../subscriptions/queries.ts';
import { serializeWebhook } from '../subscriptions/serializer.ts';
import { type Notification, transportEventsByIds } from './queries.ts';

export const INCLUDES = ['webhook', 'reference_object'] as const;

/** Webhooks and reference objects of these notifications, for `include`. */
export async function notificationIncludes(
  db: Kysely<DB>,
  accountId: string,
  rows: Notification[],
  include: Set<string>,
): Promise<Resource[]> {
  const included = new Included();
  if (include.has('webhook')) {
    const now = new Date();
    for (const w of await webhooksByIds(
      db,
      accountId,
      rows.map((r) => r.webhook_id),
    ))
      included.add(serializeWebhook(w, now));
  }
  if (include.has('reference_object')) {
    const ids = (type: string) => rows.filter((r) => r.reference_type === type).map((r) => r.reference_id);
    for (const tr of await trackingRequestsByIds(db, accountId, ids('tracking_request')))
      included.add(serializeTrackingRequest(tr));
    for (const e of await transportEventsByIds(db, accountId, ids('transport_event')))
      included.add(serializeTransportEvent(e));
    const containers = await containersByIds(db, accountId, ids('container'));
    for (const c of await containerResources(db, accountId, containers)) included.add(c);
    // estimated_event, container_created_event and container_updated_event have no resource
    // serializer outside the notification renderer yet: the relationship names them, they are not included.
  }
  return included.items;
}
