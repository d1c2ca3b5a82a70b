import { randomUUID } from 'node:crypto';
import { sampleDocumentBody } from '../../documents/webhook-include.ts';
import { one, type Resource } from '../../jsonapi/resource.ts';
import { portByLocode } from '../../reference/data.ts';
import { portResources } from '../../reference/serializers.ts';
import { serializeTrackingRequest } from '../../tracking-requests/serializer.ts';

// Example notification bodies: the shapes receivers get, with made-up ids, for the trigger and
// examples endpoints. Nothing here is read from the database.

/** The attribute each terminal-data change event's changeset names (engine/terminal-diff.ts). */
const TERMINAL_CHANGE_FIELDS: Record<string, string> = {
  'container.pickup_lfd.changed': 'pickup_lfd',
  'container.pickup_lfd_line.changed': 'pickup_lfd_line',
  'container.pickup_lfd_terminal.changed': 'pickup_lfd_terminal',
  'container.pickup_lfd_rail.changed': 'pickup_lfd_rail',
  'container.pickup_appointment.changed': 'pickup_appointment_at',
};

/** An example body for an event: realistic shapes, made-up ids (trigger and examples endpoints). */
export function sampleBody(event: string, ids: { notificationId: string; webhookId: string | null }): string {
  if (event.startsWith('document.')) return sampleDocumentBody(event, ids);
  const now = new Date();
  const shipmentId = randomUUID();
  const containerId = randomUUID();
  const rotterdam = portByLocode('NLRTM');
  const shanghai = portByLocode('CNSGH');
  const isRequest = event.startsWith('tracking_request.');
  const isEstimate = event.includes('.estimated.');
  // Terminal-data changes (last free days, appointment) are container updates with a changeset.
  const terminalField = TERMINAL_CHANGE_FIELDS[event];
  const isContainerChange =
    event === 'container.created' || event === 'container.updated' || terminalField !== undefined;
  const isTerminalChange = event === 'container.pod_terminal_changed';
  const referenceType = isRequest
    ? 'tracking_request'
    : isTerminalChange
      ? 'container_pod_terminal_changed_event'
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
        customer_id: null,
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
  } else if (isTerminalChange) {
    included.push({
      id: referenceId,
      type: referenceType,
      attributes: { data_source: 'shipping_line', timestamp: now.toISOString() },
      relationships: {
        container: one('container', containerId),
        shipment: one('shipment', shipmentId),
        terminal: { data: null },
      },
    });
  } else if (isContainerChange) {
    included.push({
      id: referenceId,
      type: referenceType,
      attributes: {
        changeset: terminalField
          ? { [terminalField]: [null, new Date(now.getTime() + 4 * 86_400_000).toISOString()] }
          : event === 'container.updated'
            ? { current_status: ['on_ship', 'grounded'] }
            : {},
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
        invalidated_at: null,
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
