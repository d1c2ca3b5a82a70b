// The activity code -> product event table (CARRIER-NOTES §4), kept as data so the rules read as a table.
// The normalizer decides *where* an event sits (port role, export or import side); this file
// says what that combination is called and what it means for the container's status.

import type { ContainerStatus, EstimatedEventName, TransportEventName } from './types.ts';

/** Role of the port at one end of a water leg (CARRIER-NOTES §5). */
export type PortRole = 'pol' | 'transshipment' | 'pod' | 'feeder';
/** A water move: equipment LOAD/DISC or transport DEPA/ARRI. */
export type WaterMove = 'LOAD' | 'DEPA' | 'ARRI' | 'DISC';

const P = 'container.transport.';

const WATER: Record<PortRole, Partial<Record<WaterMove, TransportEventName>>> = {
  pol: { LOAD: `${P}vessel_loaded`, DEPA: `${P}vessel_departed` },
  transshipment: {
    ARRI: `${P}transshipment_arrived`,
    DISC: `${P}transshipment_discharged`,
    LOAD: `${P}transshipment_loaded`,
    DEPA: `${P}transshipment_departed`,
  },
  pod: { ARRI: `${P}vessel_arrived`, DISC: `${P}vessel_discharged` },
  feeder: {
    ARRI: `${P}feeder_arrived`,
    DISC: `${P}feeder_discharged`,
    LOAD: `${P}feeder_loaded`,
    DEPA: `${P}feeder_departed`,
  },
};

/**
 * Name of an actual water move at a port with the given role. `berth` marks an ARRI whose
 * facilityTypeCode is BRTH: the only berthing signal T&T carries (never synthesized).
 */
export function waterEventName(role: PortRole, move: WaterMove, berth = false): TransportEventName | null {
  if (role === 'pod' && move === 'ARRI' && berth) return `${P}vessel_berthed`;
  return WATER[role][move] ?? null;
}

/** Equipment gate and yard codes on the export side (before the first water load). */
export const EXPORT_EQUIPMENT: Record<string, TransportEventName> = {
  'GTOT/empty': `${P}empty_out`,
  'GTIN/laden': `${P}full_in`,
};

/** Equipment codes on the import side (after the discharge at the POD). */
export const IMPORT_EQUIPMENT: Record<string, TransportEventName> = {
  'GTOT/laden': `${P}full_out`,
  'DROP/laden': `${P}delivered`,
  'GTIN/empty': `${P}empty_in`,
  // AVPU is a later (v3) reference-data code; 2.2 carriers that send it mean "available".
  'AVPU/laden': `${P}available`,
};

export const RAIL_LOADED: TransportEventName = `${P}rail_loaded`;
export const RAIL_DEPARTED: TransportEventName = `${P}rail_departed`;
export const RAIL_ARRIVED: TransportEventName = `${P}rail_arrived`;
export const RAIL_UNLOADED: TransportEventName = `${P}rail_unloaded`;
export const INLAND_ARRIVED: TransportEventName = `${P}arrived_at_inland_destination`;

export const EST_DEPARTED: EstimatedEventName = `${P}estimated.vessel_departed`;
export const EST_ARRIVED: EstimatedEventName = `${P}estimated.vessel_arrived`;
export const EST_INLAND: EstimatedEventName = `${P}estimated.arrived_at_inland_destination`;

/** The actual event whose existence suppresses an estimate (CARRIER-NOTES §4). */
export const ACTUAL_FOR_ESTIMATE: Record<EstimatedEventName, TransportEventName> = {
  [EST_DEPARTED]: `${P}vessel_departed`,
  [EST_ARRIVED]: `${P}vessel_arrived`,
  [EST_INLAND]: INLAND_ARRIVED,
};

/**
 * Status after each actual event, with a progress rank that breaks ties between events carrying
 * the same timestamp (a gate-out and an empty return stamped alike must end as empty_returned).
 */
export const STATUS_AFTER: Record<TransportEventName, { status: ContainerStatus; rank: number }> = {
  [`${P}empty_out`]: { status: 'new', rank: 0 },
  [`${P}full_in`]: { status: 'new', rank: 1 },
  [`${P}feeder_loaded`]: { status: 'on_ship', rank: 2 },
  [`${P}feeder_departed`]: { status: 'on_ship', rank: 3 },
  [`${P}feeder_arrived`]: { status: 'on_ship', rank: 4 },
  [`${P}feeder_discharged`]: { status: 'on_ship', rank: 5 },
  [`${P}vessel_loaded`]: { status: 'loaded', rank: 6 },
  [`${P}vessel_departed`]: { status: 'on_ship', rank: 7 },
  [`${P}transshipment_arrived`]: { status: 'on_ship', rank: 8 },
  [`${P}transshipment_discharged`]: { status: 'on_ship', rank: 9 },
  [`${P}transshipment_loaded`]: { status: 'on_ship', rank: 10 },
  [`${P}transshipment_departed`]: { status: 'on_ship', rank: 11 },
  [`${P}vessel_arrived`]: { status: 'on_ship', rank: 12 },
  [`${P}vessel_berthed`]: { status: 'on_ship', rank: 13 },
  // Replaced by awaiting_inland_transfer when an inland destination lies ahead.
  [`${P}vessel_discharged`]: { status: 'grounded', rank: 14 },
  [`${P}not_available`]: { status: 'not_available', rank: 15 },
  [`${P}available`]: { status: 'available', rank: 16 },
  [`${P}rail_loaded`]: { status: 'on_rail', rank: 17 },
  [`${P}rail_departed`]: { status: 'on_rail', rank: 18 },
  [`${P}rail_arrived`]: { status: 'on_rail', rank: 19 },
  [`${P}rail_unloaded`]: { status: 'grounded', rank: 20 },
  [`${P}arrived_at_inland_destination`]: { status: 'grounded', rank: 21 },
  [`${P}full_out`]: { status: 'picked_up', rank: 22 },
  [`${P}delivered`]: { status: 'delivered', rank: 23 },
  [`${P}empty_in`]: { status: 'empty_returned', rank: 24 },
};

/** Shipment events that mean the booking is off (REJE on a booking, or the unofficial CANC). */
export function isBookingCancellation(code: string, documentTypeCode: string | null): boolean {
  if (code === 'CANC') return true;
  return code === 'REJE' && (documentTypeCode === 'BKG' || documentTypeCode === 'CBR');
}

/** Shipment events that say something about the booking's state (to find its latest state). */
export function isBookingStateEvent(code: string, documentTypeCode: string | null): boolean {
  return code === 'CANC' || documentTypeCode === 'BKG' || documentTypeCode === 'CBR';
}
