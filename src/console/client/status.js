// The Shipments page's Status column, derived from the shipment's tracking state and its
// containers' milestones. First rule that holds wins:
//
//   1. Empty returned     every container has an empty return (empty_terminated_at)
//   2. Tracking stopped   the line is no longer polled (line_tracking_stopped_at), for any other reason
//   3. Picked up          every container left the port of discharge or reached its destination
//                          (pod_full_out_at, final_destination_full_out_at, an empty return, or a
//                          status past pickup)
//   4. Arrived            the vessel arrived at the port of discharge (pod_ata_at), or a container did
//   5. In transit         the vessel left the port of lading (pol_atd_at), or a container was loaded
//                          or is on a ship
//   6. Awaiting departure anything before that
//
// docs/console.md documents the same rule.

export const STATUSES = [
  { id: 'awaiting_departure', label: 'Awaiting departure', tone: 'info' },
  { id: 'in_transit', label: 'In transit', tone: 'info' },
  { id: 'arrived', label: 'Arrived', tone: 'warn' },
  { id: 'picked_up', label: 'Picked up', tone: 'ok' },
  { id: 'empty_returned', label: 'Empty returned', tone: 'ok' },
  { id: 'tracking_stopped', label: 'Tracking stopped', tone: '' },
];

const PAST_PICKUP = new Set(['picked_up', 'off_dock', 'delivered', 'dropped', 'empty_returned', 'on_rail']);
const AT_SEA = new Set(['on_ship', 'loaded']);

/** `containers`: the shipment's container resources (from include=containers). */
export function shipmentStatus(shipment, containers) {
  const a = shipment.attributes;
  const cs = containers.map((c) => c.attributes);
  const all = (f) => cs.length > 0 && cs.every(f);
  const any = (f) => cs.some(f);
  let id = 'awaiting_departure';
  if (all((c) => c.empty_terminated_at)) id = 'empty_returned';
  else if (a.line_tracking_stopped_at) id = 'tracking_stopped';
  else if (
    all(
      (c) =>
        c.pod_full_out_at ||
        c.final_destination_full_out_at ||
        c.empty_terminated_at ||
        PAST_PICKUP.has(c.current_status),
    )
  )
    id = 'picked_up';
  else if (a.pod_ata_at || any((c) => c.pod_arrived_at || c.pod_discharged_at)) id = 'arrived';
  else if (a.pol_atd_at || any((c) => AT_SEA.has(c.current_status))) id = 'in_transit';
  return STATUSES.find((s) => s.id === id);
}
