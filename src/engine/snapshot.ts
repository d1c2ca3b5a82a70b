// The one shape in which carriers hand their answers to the engine: a carrier snapshot. Every
// adapter (src/carriers/<adapter>/) turns its protocol into this; the engine reads nothing else,
// so a second protocol (DCSA 3.x, a terminal feed) never touches the engine.
//
// Vocabulary is the product's: lower-case modes and certainties, UN/LOCODEs, ISO 6346 container
// numbers, vessel IMO numbers. Activity codes are the UN/CEFACT-derived four-letter codes the
// industry standardised (LOAD, DISC, GTIN, ARRI, ...), which every protocol we know maps to; the
// engine's event table (event-mapping.ts) names the product's events from them. Times are the
// carrier's own strings (ISO 8601, offset optional): reading a time without an offset needs the
// location's zone, which is reference data and so the engine's business (time.ts).

/** Kinds of number a carrier can be asked about. */
export type NumberType = 'bill_of_lading' | 'booking_number' | 'container';

export type TransportMode = 'vessel' | 'barge' | 'rail' | 'truck';
/** Actual (it happened), estimated (current forecast) or planned (the schedule). */
export type Certainty = 'actual' | 'estimated' | 'planned';

/** A place: a UN/LOCODE and, when the carrier names one, a facility. */
export interface SnapshotPlace {
  locode: string | null;
  facilityCode: string | null;
  /** Code list of facilityCode: SMDG, BIC, or null when the carrier did not say. */
  facilityProvider: string | null;
  /** Kind of facility (BRTH berth, INTE inland terminal, RAMP rail ramp, DEPO depot, ...). */
  facilityTypeCode: string | null;
}

/** A call of a means of transport at a place. */
export interface SnapshotCall extends SnapshotPlace {
  /** The carrier's id for the call (some carriers regenerate it: a weak identity). */
  transportCallId: string | null;
  mode: TransportMode | null;
  serviceCode: string | null;
  exportVoyage: string | null;
  importVoyage: string | null;
  sequence: number | null;
  vesselImo: string | null;
  vesselName: string | null;
}

interface SnapshotEventBase {
  /** The carrier's id of the event, when it has one. */
  eventId: string | null;
  certainty: Certainty;
  /** When it happened (or is expected to), as the carrier wrote it. */
  eventTime: string | null;
  /** When the carrier recorded this version: the clock of "which version is newer". */
  recordedTime: string | null;
  documentReferences: { type: string; value: string }[];
}

/** A means of transport arrived (ARRI) or departed (DEPA). */
export interface SnapshotTransportEvent extends SnapshotEventBase {
  kind: 'transport';
  code: string;
  call: SnapshotCall | null;
}

/** Something happened to a container (LOAD, DISC, GTIN, GTOT, DROP, AVPU, ...). */
export interface SnapshotEquipmentEvent extends SnapshotEventBase {
  kind: 'equipment';
  code: string;
  fill: 'empty' | 'laden' | null;
  /** ISO 6346 container number, separators removed. */
  container: string | null;
  isoEquipmentCode: string | null;
  sealNumber: string | null;
  /** Where it happened when that is not the call's place (gate events: the depot or terminal). */
  place: SnapshotPlace | null;
  call: SnapshotCall | null;
}

/** A document or booking event (CANC, REJE, ISSU, ...). */
export interface SnapshotShipmentEvent extends SnapshotEventBase {
  kind: 'shipment';
  code: string;
  documentTypeCode: string | null;
  documentId: string | null;
}

export type SnapshotEvent = SnapshotTransportEvent | SnapshotEquipmentEvent | SnapshotShipmentEvent;

/** How the carrier itself labels a record (kept beside the raw payload for people reading it). */
export interface CarrierLabel {
  type: string | null;
  code: string | null;
  classifier: string | null;
}

/** One thing the carrier sent: opaque as received, plus what the adapter could read of it. */
export interface CarrierRecord {
  raw: unknown;
  /** The carrier's id for this record (deduplication key of stored raw events), if any. */
  carrierId: string | null;
  /** Null when the adapter could not read it: kept and counted, never used. */
  event: SnapshotEvent | null;
  label: CarrierLabel;
  /**
   * What a record that is not an event still says about a container (DCSA 3.0.0 IoT and reefer
   * readings): stored with the raw record so that it lists under that container, never read as a
   * milestone.
   */
  reading?: CarrierReading;
}

export interface CarrierReading {
  /** ISO 6346 container number, separators removed. */
  container: string | null;
  eventTime: string | null;
  recordedTime: string | null;
  locode: string | null;
}

/** A carrier's whole answer for one number. */
export interface CarrierSnapshot {
  records: CarrierRecord[];
}

/** An ISO 6346 container number as carriers write it ("MSCU 123456-7" -> "MSCU1234567"), or null. */
export function normalizeContainerNumber(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  if (s.length === 0 || s.length > 200) return null;
  const c = s.replace(/[\s\-./]/g, '').toUpperCase();
  return /^[A-Z0-9]{4,15}$/.test(c) ? c : null;
}
