import { Type } from 'typebox';
import { iso, many, one, type Resource, selfLink } from '../jsonapi/document.ts';
import { DateTime, Nullable, RelMany, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import { portByLocode, shippingLineByScac } from '../reference/data.ts';
import type { ShipmentRow } from './queries.ts';

export const STOP_REASONS = [
  'all_containers_terminated',
  'past_arrival_window',
  'past_full_out_window',
  'no_updates_at_line',
  'cancelled_by_user',
  'booking_cancelled',
] as const;

const Str = Nullable(Type.String());
const Time = Nullable(DateTime);
const Tz = Nullable(Type.String({ description: 'IANA tz' }));

export const ShipmentSchema = resourceSchema(
  'shipment',
  Type.Object({
    bill_of_lading_number: Type.String(),
    normalized_number: Type.String({ description: 'The number the carrier is queried with.' }),
    ref_numbers: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    created_at: DateTime,
    updated_at: DateTime,
    port_of_lading_locode: Str,
    port_of_lading_name: Str,
    port_of_discharge_locode: Str,
    port_of_discharge_name: Str,
    destination_locode: Str,
    destination_name: Str,
    transshipment_locodes: Type.Array(Type.String(), {
      description: 'UN/LOCODEs of transshipment ports, in route order.',
    }),
    shipping_line_scac: Type.String(),
    shipping_line_name: Type.String(),
    shipping_line_short_name: Type.String(),
    customer_name: Str,
    pod_vessel_name: Str,
    pod_vessel_imo: Str,
    pod_voyage_number: Str,
    pol_etd_at: Time,
    pol_atd_at: Time,
    pod_eta_at: Time,
    pod_original_eta_at: Time,
    pol_original_etd_at: Time,
    destination_original_eta_at: Time,
    pod_ata_at: Time,
    destination_eta_at: Time,
    destination_ata_at: Time,
    pol_timezone: Tz,
    pod_timezone: Tz,
    destination_timezone: Tz,
    line_tracking_last_attempted_at: Time,
    line_tracking_last_succeeded_at: Time,
    line_tracking_stopped_at: Time,
    line_tracking_stopped_reason: Nullable(Type.String({ enum: [...STOP_REASONS] })),
  }),
  Type.Object({
    port_of_lading: RelOne,
    port_of_discharge: RelOne,
    destination: RelOne,
    pod_terminal: RelOne,
    destination_terminal: RelOne,
    containers: RelMany,
    line_tracking_stopped_by_user: RelOne,
  }),
  'A shipment: one bill of lading or booking at one carrier, with its containers.',
);

/** `containerIds`: the shipment's containers, in number order. */
export function serializeShipment(s: ShipmentRow, containerIds: string[]): Resource {
  const pol = s.port_of_lading_locode ? portByLocode(s.port_of_lading_locode) : undefined;
  const pod = s.port_of_discharge_locode ? portByLocode(s.port_of_discharge_locode) : undefined;
  const dest = s.destination_locode ? portByLocode(s.destination_locode) : undefined;
  const line = shippingLineByScac(s.scac);
  return {
    id: s.id,
    type: 'shipment',
    attributes: {
      bill_of_lading_number: s.bill_of_lading_number,
      normalized_number: s.normalized_number,
      ref_numbers: s.ref_numbers,
      tags: s.tags,
      created_at: iso(s.created_at),
      updated_at: iso(s.updated_at),
      port_of_lading_locode: s.port_of_lading_locode,
      port_of_lading_name: pol?.name ?? null,
      port_of_discharge_locode: s.port_of_discharge_locode,
      port_of_discharge_name: pod?.name ?? null,
      destination_locode: s.destination_locode,
      destination_name: dest?.name ?? null,
      transshipment_locodes: s.transshipment_locodes,
      shipping_line_scac: line?.scac ?? s.scac,
      shipping_line_name: line?.name ?? s.scac,
      shipping_line_short_name: line?.short_name ?? s.scac,
      customer_name: s.customer_name,
      pod_vessel_name: s.pod_vessel_name,
      pod_vessel_imo: s.pod_vessel_imo,
      pod_voyage_number: s.pod_voyage_number,
      pol_etd_at: iso(s.pol_etd_at),
      pol_atd_at: iso(s.pol_atd_at),
      pod_eta_at: iso(s.pod_eta_at),
      pod_original_eta_at: iso(s.pod_original_eta_at),
      pol_original_etd_at: iso(s.pol_original_etd_at),
      destination_original_eta_at: iso(s.destination_original_eta_at),
      pod_ata_at: iso(s.pod_ata_at),
      destination_eta_at: iso(s.destination_eta_at),
      destination_ata_at: iso(s.destination_ata_at),
      pol_timezone: pol?.time_zone ?? null,
      pod_timezone: pod?.time_zone ?? null,
      destination_timezone: dest?.time_zone ?? null,
      line_tracking_last_attempted_at: iso(s.line_tracking_last_attempted_at),
      line_tracking_last_succeeded_at: iso(s.line_tracking_last_succeeded_at),
      line_tracking_stopped_at: iso(s.line_tracking_stopped_at),
      line_tracking_stopped_reason: s.line_tracking_stopped_reason,
    },
    relationships: {
      port_of_lading: one('port', pol?.id),
      port_of_discharge: one('port', pod?.id),
      destination: one('port', dest?.id),
      pod_terminal: one('terminal', s.pod_terminal_id),
      destination_terminal: one('terminal', s.destination_terminal_id),
      containers: many('container', containerIds),
      // Stops are made through the API key's account; there are no users to point at.
      line_tracking_stopped_by_user: { data: null },
    },
    links: selfLink(`/shipments/${s.id}`),
  };
}
