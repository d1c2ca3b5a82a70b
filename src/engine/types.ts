// The normalized state the engine derives from a carrier snapshot (snapshot.ts). Produced by the pure
// normalizer (normalize.ts), diffed against the stored state, then written in one transaction.
// Every timestamp is an ISO 8601 UTC string ("2026-01-02T03:04:05.000Z") or null.

export type TransportEventName =
  | 'container.transport.empty_out'
  | 'container.transport.full_in'
  | 'container.transport.vessel_loaded'
  | 'container.transport.vessel_departed'
  | 'container.transport.transshipment_arrived'
  | 'container.transport.transshipment_discharged'
  | 'container.transport.transshipment_loaded'
  | 'container.transport.transshipment_departed'
  | 'container.transport.feeder_arrived'
  | 'container.transport.feeder_discharged'
  | 'container.transport.feeder_loaded'
  | 'container.transport.feeder_departed'
  | 'container.transport.vessel_arrived'
  | 'container.transport.vessel_berthed'
  | 'container.transport.vessel_discharged'
  | 'container.transport.available'
  | 'container.transport.not_available'
  | 'container.transport.full_out'
  | 'container.transport.delivered'
  | 'container.transport.empty_in'
  | 'container.transport.rail_loaded'
  | 'container.transport.rail_departed'
  | 'container.transport.rail_arrived'
  | 'container.transport.rail_unloaded'
  | 'container.transport.arrived_at_inland_destination';

export type EstimatedEventName =
  | 'container.transport.estimated.vessel_departed'
  | 'container.transport.estimated.vessel_arrived'
  | 'container.transport.estimated.arrived_at_inland_destination';

export interface VesselRef {
  imo: string | null;
  name: string | null;
}

/** A terminal as the carrier names it: port UN/LOCODE plus SMDG facility code. */
export interface TerminalRef {
  port_locode: string;
  smdg_code: string;
}

export interface NormalizedTransportEvent {
  /** Deterministic semantic key, unique within a container: a correction keeps its key. */
  key: string;
  event: TransportEventName;
  timestamp: string | null;
  /** true when the carrier's time had no offset and was read in the location's zone (or UTC). */
  timestamp_inferred_zone: boolean;
  location_locode: string | null;
  timezone: string | null;
  terminal: TerminalRef | null;
  vessel: VesselRef | null;
  voyage_number: string | null;
  mode: 'vessel' | 'barge' | 'rail' | 'truck' | null;
  data_source: 'shipping_line';
  /** Carrier event ids this event was derived from (for provenance). */
  source_event_ids: string[];
}

export interface NormalizedEstimatedEvent {
  key: string;
  event: EstimatedEventName;
  estimated_time: string;
  location_locode: string | null;
  timezone: string | null;
  vessel: VesselRef | null;
  voyage_number: string | null;
}

export type ContainerStatus =
  | 'new'
  | 'on_ship'
  | 'available'
  | 'not_available'
  | 'grounded'
  | 'on_rail'
  | 'picked_up'
  | 'off_dock'
  | 'delivered'
  | 'dropped'
  | 'loaded'
  | 'empty_returned'
  | 'awaiting_inland_transfer';

export interface NormalizedContainer {
  number: string;
  equipment_type: 'dry' | 'reefer' | 'open_top' | 'flat_rack' | 'bulk' | 'tank' | null;
  equipment_length: 10 | 20 | 40 | 45 | null;
  equipment_height: 'standard' | 'high_cube' | null;
  iso_equipment_code: string | null;
  seal_number: string | null;
  pod_arrived_at: string | null;
  pod_discharged_at: string | null;
  pod_full_out_at: string | null;
  empty_terminated_at: string | null;
  pod_rail_loaded_at: string | null;
  pod_rail_departed_at: string | null;
  ind_eta_at: string | null;
  ind_ata_at: string | null;
  ind_rail_unloaded_at: string | null;
  final_destination_full_out_at: string | null;
  /** Export side: empty picked up, full gated in at the POL, loaded on and departed with the first mainline vessel. */
  empty_out_at: string | null;
  pol_full_in_at: string | null;
  pol_vessel_loaded_at: string | null;
  pol_vessel_departed_at: string | null;
  /** Delivered to the consignee (carrier haulage: DROP at the customer's location). */
  delivered_at: string | null;
  current_status: ContainerStatus;
  /** Actual events, ordered by (timestamp, key) so the order is deterministic. */
  transport_events: NormalizedTransportEvent[];
  /** Latest estimate per semantic key, suppressed once the matching actual exists. */
  estimated_events: NormalizedEstimatedEvent[];
}

export interface NormalizedShipment {
  /**
   * The carrier's bill of lading (TRD document reference) when the shipment was asked for by
   * container or booking number; null for B/L requests (the number asked for is the B/L) and
   * until the carrier reports one.
   */
  bill_of_lading_number: string | null;
  port_of_lading_locode: string | null;
  port_of_discharge_locode: string | null;
  destination_locode: string | null;
  transshipment_locodes: string[];
  pod_terminal: TerminalRef | null;
  pod_vessel: VesselRef | null;
  pod_voyage_number: string | null;
  pol_etd_at: string | null;
  pol_atd_at: string | null;
  pod_eta_at: string | null;
  pod_ata_at: string | null;
  destination_eta_at: string | null;
  destination_ata_at: string | null;
}

export interface NormalizedSnapshot {
  shipment: NormalizedShipment;
  containers: NormalizedContainer[];
  /** The carrier reports the booking as cancelled. */
  booking_cancelled: boolean;
  /** Carrier event ids that were parsed (for raw_events bookkeeping); unparseable ones are skipped. */
  parsed_event_count: number;
  skipped_event_count: number;
}
