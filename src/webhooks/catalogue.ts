// The webhook event catalogue: every event a webhook can subscribe to, grouped by category, with
// what it means. Data only. The names are exactly the `events` enum of the reference openapi.json
// (43 events); GET /v2/webhooks/events serves this list.

export interface EventInfo {
  name: string;
  description: string;
}

export interface EventCategory {
  /** Stable slug, the `id` of the `webhook_event_category` resource. */
  id: string;
  name: string;
  events: EventInfo[];
}

const e = (name: string, description: string): EventInfo => ({ name, description });

export const EVENT_CATEGORIES: readonly EventCategory[] = [
  {
    id: 'tracking-request-events',
    name: 'Tracking Request Events',
    events: [
      e('tracking_request.succeeded', 'Shipment created and linked to the tracking request.'),
      e(
        'tracking_request.failed',
        'The tracking request failed: the shipping line could not find the number, or retries were exhausted.',
      ),
      e(
        'tracking_request.awaiting_manifest',
        'The shipping line has not manifested the number yet; the service keeps checking.',
      ),
      e(
        'tracking_request.tracking_stopped',
        'The shipment is no longer updated (delivered, past its tracking window, or stopped).',
      ),
    ],
  },
  {
    id: 'origin-events',
    name: 'Origin Events',
    events: [
      e('container.transport.empty_out', 'Empty container picked up at the port of lading.'),
      e('container.transport.full_in', 'Full container gated in at the port of lading.'),
      e('container.transport.vessel_loaded', 'Container loaded on the vessel at the port of lading.'),
      e('container.transport.vessel_departed', 'Vessel departed the port of lading.'),
    ],
  },
  {
    id: 'transshipment-events',
    name: 'Transshipment Events',
    events: [
      e('container.transport.transshipment_arrived', 'Container arrived at a transshipment port.'),
      e('container.transport.transshipment_discharged', 'Container discharged at a transshipment port.'),
      e('container.transport.transshipment_loaded', 'Container loaded at a transshipment port.'),
      e('container.transport.transshipment_departed', 'Container departed a transshipment port.'),
    ],
  },
  {
    id: 'feeder-events',
    name: 'Feeder and Barge Events',
    events: [
      e('container.transport.feeder_arrived', 'Feeder or barge arrived with the container.'),
      e('container.transport.feeder_discharged', 'Container discharged from a feeder or barge.'),
      e('container.transport.feeder_loaded', 'Container loaded on a feeder or barge.'),
      e('container.transport.feeder_departed', 'Feeder or barge departed with the container.'),
    ],
  },
  {
    id: 'destination-events',
    name: 'Destination Events',
    events: [
      e('container.transport.vessel_arrived', 'Vessel arrived at the port of discharge.'),
      e('container.transport.vessel_berthed', 'Vessel berthed at the port of discharge.'),
      e('container.transport.vessel_discharged', 'Container discharged at the port of discharge.'),
      e('container.transport.available', 'Container available for pickup at the terminal.'),
      e('container.transport.not_available', 'Container no longer available for pickup.'),
      e('container.transport.full_out', 'Full container gated out at the port of discharge.'),
      e('container.transport.delivered', 'Container marked as delivered.'),
      e('container.transport.empty_in', 'Empty container returned.'),
    ],
  },
  {
    id: 'rail-events',
    name: 'Rail Events',
    events: [
      e('container.transport.rail_loaded', 'Container loaded on a train.'),
      e('container.transport.rail_departed', 'Train departed with the container.'),
      e('container.transport.rail_arrived', 'Train arrived with the container.'),
      e('container.transport.rail_unloaded', 'Container unloaded from the train.'),
      e(
        'container.transport.arrived_at_inland_destination',
        'Container arrived at its inland destination (inland rail leg only).',
      ),
    ],
  },
  {
    id: 'estimated-events',
    name: 'Estimated Events',
    events: [
      e(
        'container.transport.estimated.vessel_departed',
        'Estimated time of departure from the port of lading changed.',
      ),
      e(
        'shipment.estimated.arrival',
        'Estimated time of arrival at the port of discharge changed (shipment).',
      ),
      e(
        'container.transport.estimated.vessel_arrived',
        'Estimated time of arrival at the port of discharge changed (container).',
      ),
      e(
        'container.transport.estimated.arrived_at_inland_destination',
        'Estimated time of arrival at the inland destination changed.',
      ),
    ],
  },
  {
    id: 'container-update-events',
    name: 'Container Update Events',
    events: [
      e('container.created', 'Container added to a shipment.'),
      e('container.updated', 'Container attributes changed; the changeset holds [old, new] per attribute.'),
      e('container.pod_terminal_changed', 'Terminal at the port of discharge reassigned.'),
      e(
        'container.pickup_lfd.changed',
        'The last free day for pickup changed (coalesced: line, then terminal, then rail).',
      ),
      e('container.pickup_lfd_line.changed', "The shipping line's last free day changed."),
      e('container.pickup_lfd_terminal.changed', "The terminal's last free day changed."),
      e('container.pickup_lfd_rail.changed', "The rail carrier's last free day changed."),
      e('container.pickup_appointment.changed', 'The pickup appointment changed.'),
    ],
  },
  {
    id: 'document-events',
    name: 'Document Events',
    events: [
      e('document.extracted', 'Data was extracted from a document.'),
      e('document.extraction_failed', 'Data could not be extracted from a document.'),
    ],
  },
];

/** Every event name, in the order of the reference openapi.json enum. */
export const EVENT_NAMES: readonly string[] = [
  'container.transport.vessel_arrived',
  'container.transport.estimated.vessel_arrived',
  'container.transport.vessel_discharged',
  'container.transport.vessel_loaded',
  'container.transport.vessel_departed',
  'container.transport.estimated.vessel_departed',
  'container.transport.rail_departed',
  'container.transport.rail_arrived',
  'container.transport.rail_loaded',
  'container.transport.rail_unloaded',
  'container.transport.transshipment_arrived',
  'container.transport.transshipment_discharged',
  'container.transport.transshipment_loaded',
  'container.transport.transshipment_departed',
  'container.transport.feeder_arrived',
  'container.transport.feeder_discharged',
  'container.transport.feeder_loaded',
  'container.transport.feeder_departed',
  'container.transport.empty_out',
  'container.transport.full_in',
  'container.transport.full_out',
  'container.transport.empty_in',
  'container.transport.vessel_berthed',
  'shipment.estimated.arrival',
  'tracking_request.succeeded',
  'tracking_request.failed',
  'tracking_request.awaiting_manifest',
  'tracking_request.tracking_stopped',
  'container.created',
  'container.updated',
  'container.pod_terminal_changed',
  'container.transport.arrived_at_inland_destination',
  'container.transport.estimated.arrived_at_inland_destination',
  'container.pickup_lfd.changed',
  'container.pickup_lfd_line.changed',
  'container.pickup_lfd_terminal.changed',
  'container.pickup_lfd_rail.changed',
  'container.pickup_appointment.changed',
  'container.transport.available',
  'container.transport.not_available',
  'container.transport.delivered',
  'document.extracted',
  'document.extraction_failed',
];

const BY_NAME: ReadonlyMap<string, EventInfo & { category: string }> = new Map(
  EVENT_CATEGORIES.flatMap((c) => c.events.map((ev) => [ev.name, { ...ev, category: c.id }] as const)),
);

export function isKnownEvent(name: string): boolean {
  return BY_NAME.has(name);
}

/** Description and category id of an event, or undefined for an unknown name. */
export function eventInfo(name: string): (EventInfo & { category: string }) | undefined {
  return BY_NAME.get(name);
}
