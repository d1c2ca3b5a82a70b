import { type IncludeBuilder, Included } from '../../jsonapi/resource.ts';
import { containerResourcesByIds } from '../../shipments/containers/bodies.ts';
import { serializeTransportEvent } from '../../shipments/containers/serializer.ts';
import { trackingRequestsByIds } from '../../tracking-requests/queries.ts';
import { serializeTrackingRequest } from '../../tracking-requests/serializer.ts';
import { webhooksByIds } from '../subscriptions/queries.ts';
import { serializeWebhook } from '../subscriptions/serializer.ts';
import { type Notification, transportEventsByIds } from './queries.ts';

export const INCLUDES = ['webhook', 'reference_object'] as const;

/** Webhooks and reference objects of these notifications, for `include`. */
export const notificationIncludes: IncludeBuilder<Notification> = async (db, accountId, rows, include) => {
  const included = new Included();
  if (include.has('webhook')) {
    const now = new Date();
    const webhooks = await webhooksByIds(
      db,
      accountId,
      rows.map((r) => r.webhook_id),
    );
    included.addAll(webhooks.map((w) => serializeWebhook(w, now)));
  }
  if (include.has('reference_object')) {
    const ids = (type: string) => rows.filter((r) => r.reference_type === type).map((r) => r.reference_id);
    included.addAll(
      (await trackingRequestsByIds(db, accountId, ids('tracking_request'))).map((r) =>
        serializeTrackingRequest(r),
      ),
    );
    included.addAll(
      (await transportEventsByIds(db, accountId, ids('transport_event'))).map((r) =>
        serializeTransportEvent(r),
      ),
    );
    included.addAll(await containerResourcesByIds(db, accountId, ids('container')));
    // estimated_event, container_created_event and container_updated_event have no resource
    // serializer outside the notification renderer yet: the relationship names them, they are not included.
  }
  return included.items;
};
