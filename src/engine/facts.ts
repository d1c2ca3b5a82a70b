import type {
  ContainerStatus,
  NormalizedContainer,
  NormalizedShipment,
  NormalizedSnapshot,
  NormalizedTransportEvent,
  VesselRef,
} from './types.ts';

// The normalized snapshot as the facts the diff compares with the stored state (diff.ts): the
// shipment's and containers' attributes and each container's transport events, with terminals
// resolved to ids (reference data) and vessels normalized. Pure.

/** The shipment's normalized fields, with the POD terminal resolved to its id. */
export type ShipmentFacts = Omit<NormalizedShipment, 'pod_terminal'> & { pod_terminal_id: string | null };

export const CONTAINER_FIELDS = [
  'equipment_type',
  'equipment_length',
  'equipment_height',
  'iso_equipment_code',
  'seal_number',
  'pod_terminal_id',
  'pod_arrived_at',
  'pod_discharged_at',
  'pod_full_out_at',
  'empty_terminated_at',
  'pod_rail_loaded_at',
  'pod_rail_departed_at',
  'ind_eta_at',
  'ind_ata_at',
  'ind_rail_unloaded_at',
  'final_destination_full_out_at',
  'empty_out_at',
  'pol_full_in_at',
  'pol_vessel_loaded_at',
  'pol_vessel_departed_at',
  'delivered_at',
  'current_status',
] as const;
export type ContainerField = (typeof CONTAINER_FIELDS)[number];
export type ContainerFacts = { [K in ContainerField]: string | number | null } & {
  current_status: ContainerStatus | string;
};

export interface EventFacts {
  key: string;
  event: string;
  timestamp: string | null;
  timestamp_inferred_zone: boolean;
  timezone: string | null;
  location_locode: string | null;
  terminal_id: string | null;
  vessel: VesselRef | null;
  voyage_number: string | null;
  data_source: string;
}

export interface Resolve {
  terminalId(ref: { port_locode: string; smdg_code: string } | null): string | null;
}

export function snapshotFacts(
  snapshot: NormalizedSnapshot,
  resolve: Resolve,
): {
  shipment: ShipmentFacts;
  containers: Array<{
    number: string;
    facts: ContainerFacts;
    events: EventFacts[];
    source: NormalizedContainer;
  }>;
} {
  const s = snapshot.shipment;
  const podTerminalId = resolve.terminalId(s.pod_terminal);
  const shipment: ShipmentFacts = {
    bill_of_lading_number: s.bill_of_lading_number,
    port_of_lading_locode: s.port_of_lading_locode,
    port_of_discharge_locode: s.port_of_discharge_locode,
    destination_locode: s.destination_locode,
    transshipment_locodes: s.transshipment_locodes,
    pod_terminal_id: podTerminalId,
    pod_vessel: normVessel(s.pod_vessel),
    pod_voyage_number: s.pod_voyage_number,
    pol_etd_at: s.pol_etd_at,
    pol_atd_at: s.pol_atd_at,
    pod_eta_at: s.pod_eta_at,
    pod_ata_at: s.pod_ata_at,
    destination_eta_at: s.destination_eta_at,
    destination_ata_at: s.destination_ata_at,
  };
  const containers = snapshot.containers.map((c) => ({
    number: c.number,
    source: c,
    facts: {
      equipment_type: c.equipment_type,
      equipment_length: c.equipment_length,
      equipment_height: c.equipment_height,
      iso_equipment_code: c.iso_equipment_code,
      seal_number: c.seal_number,
      pod_terminal_id: podTerminalId,
      pod_arrived_at: c.pod_arrived_at,
      pod_discharged_at: c.pod_discharged_at,
      pod_full_out_at: c.pod_full_out_at,
      empty_terminated_at: c.empty_terminated_at,
      pod_rail_loaded_at: c.pod_rail_loaded_at,
      pod_rail_departed_at: c.pod_rail_departed_at,
      ind_eta_at: c.ind_eta_at,
      ind_ata_at: c.ind_ata_at,
      ind_rail_unloaded_at: c.ind_rail_unloaded_at,
      final_destination_full_out_at: c.final_destination_full_out_at,
      empty_out_at: c.empty_out_at,
      pol_full_in_at: c.pol_full_in_at,
      pol_vessel_loaded_at: c.pol_vessel_loaded_at,
      pol_vessel_departed_at: c.pol_vessel_departed_at,
      delivered_at: c.delivered_at,
      current_status: c.current_status,
    } satisfies ContainerFacts,
    events: c.transport_events.map((e) => eventFacts(e, resolve)),
  }));
  return { shipment, containers };
}

function eventFacts(e: NormalizedTransportEvent, resolve: Resolve): EventFacts {
  return {
    key: e.key,
    event: e.event,
    timestamp: e.timestamp,
    timestamp_inferred_zone: e.timestamp_inferred_zone,
    timezone: e.timezone,
    location_locode: e.location_locode,
    terminal_id: resolve.terminalId(e.terminal),
    vessel: normVessel(e.vessel),
    voyage_number: e.voyage_number,
    data_source: e.data_source,
  };
}

function normVessel(v: VesselRef | null): VesselRef | null {
  if (!v || (!v.imo && !v.name)) return null;
  return { imo: v.imo ?? null, name: v.name ?? null };
}
