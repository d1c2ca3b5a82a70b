// Readable text for agents, from API resources. Times are UTC, ISO-like and unambiguous.
import type { Doc } from './api.ts';

type Resource = NonNullable<Doc['data']>;
type Attrs = Record<string, unknown>;

export function time(iso: unknown): string {
  if (typeof iso !== 'string' || iso === '') return '—';
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

const place = (name: unknown, locode: unknown) =>
  name && locode ? `${name} (${locode})` : String(name ?? locode ?? '—');

/** `{ id, type, ...attributes }`: a resource as structured content. */
export function flat(r: Resource): Record<string, unknown> {
  return { id: r.id, type: r.type, ...(r.attributes ?? {}) };
}

export function shipmentLines(a: Attrs): string[] {
  const lines = [
    `Shipment ${a.bill_of_lading_number} — ${a.shipping_line_name} (${a.shipping_line_scac})`,
    `  Route: ${place(a.port_of_lading_name, a.port_of_lading_locode)} → ${place(a.port_of_discharge_name, a.port_of_discharge_locode)}${
      a.destination_locode && a.destination_locode !== a.port_of_discharge_locode
        ? ` → ${place(a.destination_name, a.destination_locode)}`
        : ''
    }`,
  ];
  if (Array.isArray(a.transshipment_locodes) && a.transshipment_locodes.length)
    lines.push(`  Transshipment: ${a.transshipment_locodes.join(', ')}`);
  if (a.pod_vessel_name)
    lines.push(
      `  Vessel: ${a.pod_vessel_name}${a.pod_voyage_number ? `, voyage ${a.pod_voyage_number}` : ''}`,
    );
  lines.push(`  Departure: ${a.pol_atd_at ? `ATD ${time(a.pol_atd_at)}` : `ETD ${time(a.pol_etd_at)}`}`);
  const slip =
    a.pod_original_eta_at && a.pod_eta_at && a.pod_eta_at !== a.pod_original_eta_at
      ? ` (first announced ${time(a.pod_original_eta_at)})`
      : '';
  lines.push(`  Arrival: ${a.pod_ata_at ? `ATA ${time(a.pod_ata_at)}` : `ETA ${time(a.pod_eta_at)}${slip}`}`);
  if (a.destination_eta_at || a.destination_ata_at)
    lines.push(
      `  Destination: ${a.destination_ata_at ? `ATA ${time(a.destination_ata_at)}` : `ETA ${time(a.destination_eta_at)}`}`,
    );
  if (Array.isArray(a.ref_numbers) && a.ref_numbers.length)
    lines.push(`  References: ${a.ref_numbers.join(', ')}`);
  if (Array.isArray(a.tags) && a.tags.length) lines.push(`  Tags: ${a.tags.join(', ')}`);
  if (a.line_tracking_stopped_at)
    lines.push(
      `  Tracking stopped ${time(a.line_tracking_stopped_at)} (${a.line_tracking_stopped_reason ?? 'unknown'})`,
    );
  return lines;
}

export function containerLines(a: Attrs): string[] {
  const size = [
    a.equipment_length ? `${a.equipment_length}ft` : null,
    a.equipment_height === 'high_cube' ? 'HC' : null,
    a.equipment_type,
  ]
    .filter(Boolean)
    .join(' ');
  const lines = [`Container ${a.number}${size ? ` (${size})` : ''} — status ${a.current_status}`];
  const milestones: Array<[string, unknown]> = [
    ['arrived at POD', a.pod_arrived_at],
    ['discharged', a.pod_discharged_at],
    ['picked up (full out)', a.pod_full_out_at],
    ['full out at destination', a.final_destination_full_out_at],
    ['empty returned', a.empty_terminated_at],
  ];
  for (const [label, at] of milestones) if (at) lines.push(`  ${label}: ${time(at)}`);
  lines.push(
    `  Availability: ${a.availability_known ? (a.available_for_pickup ? 'available for pickup' : 'not available') : 'unknown (no terminal data)'}`,
  );
  if (a.pickup_lfd) lines.push(`  Last free day: ${time(a.pickup_lfd)}`);
  if (Array.isArray(a.holds_at_pod_terminal) && a.holds_at_pod_terminal.length)
    lines.push(`  Holds: ${a.holds_at_pod_terminal.map((h: Attrs) => `${h.name} (${h.status})`).join(', ')}`);
  // Stopped on its own (PATCH /v2/containers/{id}/stop_tracking): the facts above are as of then.
  if (a.tracking_stopped_at)
    lines.push(
      `  Tracking of this container stopped ${time(a.tracking_stopped_at)} (${a.tracking_stopped_reason ?? 'unknown'})`,
    );
  return lines;
}

export function eventLine(e: {
  event: string;
  timestamp: string | null;
  place: string;
  vessel?: string | null;
  voyage?: string | null;
}): string {
  const name = e.event.replace(/^container\.transport\./, '');
  const ship =
    e.vessel || e.voyage ? ` — ${e.vessel ?? 'vessel'}${e.voyage ? ` voyage ${e.voyage}` : ''}` : '';
  return `${time(e.timestamp)}  ${name} at ${e.place}${ship}`;
}

export function trackingRequestLine(r: Resource): string {
  const a = r.attributes as Attrs;
  const shipment = r.relationships?.tracked_object?.data?.id;
  return `${a.request_number} (${a.request_type}, ${a.scac}) — ${a.status}${a.failed_reason ? ` (${a.failed_reason})` : ''}${
    shipment ? ` — shipment ${shipment}` : ''
  } [tracking request ${r.id}]`;
}

export { place };
