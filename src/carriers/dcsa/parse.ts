// Lenient parsing of one raw DCSA T&T v2.2 event into a typed internal form. Pure and total:
// any input gives either a ParsedEvent or null (unusable), never an exception. Tolerates unknown
// codes (AVPU, CANC, ...), nulls, wrong types, deprecated fields (`eventId` from MSC,
// `carrierVoyageNumber`, the flat `eventTypeCode`) and missing locations. Timestamps stay raw
// strings here: reading them needs the location's zone, which is the normalizer's business.
// snapshot.ts turns the result into the engine's carrier snapshot.

import { normalizeContainerNumber, type SnapshotCall, type SnapshotPlace } from '../../engine/snapshot.ts';

export type DcsaMode = 'VESSEL' | 'BARGE' | 'RAIL' | 'TRUCK';
export type DcsaClassifier = 'ACT' | 'EST' | 'PLN';

/** A place, already in the snapshot's terms (UN/LOCODE, facility code and its code list). */
export type ParsedFacility = SnapshotPlace;

/** A transport call in the snapshot's terms, but for the mode, still DCSA's. */
export interface ParsedTransportCall extends Omit<SnapshotCall, 'mode'> {
  mode: DcsaMode | null;
}

interface ParsedBase {
  /** `eventID`, or MSC's `eventId`. */
  eventId: string | null;
  classifier: DcsaClassifier | null;
  /** Raw business time string (local, ideally with an offset). */
  eventDateTime: string | null;
  /** Raw record-creation time string (metadata; the "which version is newer" clock). */
  eventCreatedDateTime: string | null;
  documentReferences: { type: string; value: string }[];
}

export interface ParsedTransportEvent extends ParsedBase {
  eventType: 'TRANSPORT';
  code: string;
  transportCall: ParsedTransportCall | null;
}

export interface ParsedEquipmentEvent extends ParsedBase {
  eventType: 'EQUIPMENT';
  code: string;
  emptyIndicator: 'EMPTY' | 'LADEN' | null;
  equipmentReference: string | null;
  isoEquipmentCode: string | null;
  sealNumber: string | null;
  /** `eventLocation` (gate events: the depot or terminal), when it names anything. */
  eventLocation: ParsedFacility | null;
  transportCall: ParsedTransportCall | null;
}

export interface ParsedShipmentEvent extends ParsedBase {
  eventType: 'SHIPMENT';
  code: string;
  documentTypeCode: string | null;
  documentId: string | null;
}

export type ParsedEvent = ParsedTransportEvent | ParsedEquipmentEvent | ParsedShipmentEvent;

// The value readers below are shared with the 3.0.0 parser (dcsa-v3/parse.ts): the same kinds of
// values, read with the same tolerance.
const MAX_STRING = 200; // every field we use is far shorter in the schema; longer is garbage

export type Obj = Record<string, unknown>;

export function obj(v: unknown): Obj | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
}

/** A trimmed, non-empty, reasonably short string; numbers are accepted and stringified. */
export function str(v: unknown): string | null {
  let s: string;
  if (typeof v === 'string') s = v.trim();
  else if (typeof v === 'number' && Number.isFinite(v)) s = String(v);
  else return null;
  return s.length > 0 && s.length <= MAX_STRING ? s : null;
}

export function code(v: unknown): string | null {
  const s = str(v);
  return s && /^[A-Za-z]{2,6}$/.test(s) ? s.toUpperCase() : null;
}

/** A UN/LOCODE ("NL RTM" and lower case tolerated) or null. */
export function normalizeLocode(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  const c = s.replace(/\s+/g, '').toUpperCase();
  return /^[A-Z]{2}[A-Z2-9]{3}$/.test(c) ? c : null;
}

/** An ISO 6346 container number as carriers write it ("MSCU 123456-7" -> "MSCU1234567"). */
export function normalizeEquipmentReference(v: unknown): string | null {
  return normalizeContainerNumber(str(v));
}

export function imo(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  const digits = s.replace(/^IMO\s*/i, '');
  return /^\d{7}$/.test(digits) ? digits : null;
}

export function int(v: unknown): number | null {
  const n = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isSafeInteger(n) ? n : null;
}

function facility(o: Obj | null): ParsedFacility | null {
  if (!o) return null;
  const f: ParsedFacility = {
    locode: normalizeLocode(o.UNLocationCode),
    facilityCode: str(o.facilityCode),
    facilityProvider: code(o.facilityCodeListProvider),
    facilityTypeCode: code(o.facilityTypeCode),
  };
  return f.locode || f.facilityCode || f.facilityTypeCode ? f : null;
}

const MODES: readonly string[] = ['VESSEL', 'BARGE', 'RAIL', 'TRUCK'];

function transportCall(v: unknown): ParsedTransportCall | null {
  const o = obj(v);
  if (!o) return null;
  // 2.3 moves UNLocationCode/facilityCode into `location`; 2.2 has them on the call. Read both,
  // preferring the nested location (the newer, more specific one).
  const nested = facility(obj(o.location));
  const flat = facility(o);
  const vessel = obj(o.vessel);
  const modeCode = code(o.modeOfTransport);
  const useNested = nested?.locode != null || (nested?.facilityCode != null && flat?.locode == null);
  const loc = useNested ? nested : flat;
  return {
    transportCallId: str(o.transportCallID) ?? str(o.transportCallId),
    mode: modeCode && MODES.includes(modeCode) ? (modeCode as DcsaMode) : null,
    serviceCode: str(o.carrierServiceCode),
    exportVoyage: str(o.exportVoyageNumber) ?? str(o.carrierVoyageNumber),
    importVoyage: str(o.importVoyageNumber),
    sequence: int(o.transportCallSequenceNumber),
    vesselImo: imo(vessel?.vesselIMONumber) ?? imo(o.vesselIMONumber),
    vesselName: str(vessel?.vesselName) ?? str(o.vesselName),
    locode: loc?.locode ?? flat?.locode ?? null,
    facilityCode: loc?.facilityCode ?? null,
    facilityProvider: loc?.facilityProvider ?? null,
    // facilityTypeCode only exists on the call itself.
    facilityTypeCode: flat?.facilityTypeCode ?? nested?.facilityTypeCode ?? null,
  };
}

const TRANSPORT_CODES: readonly string[] = ['ARRI', 'DEPA'];
const EQUIPMENT_CODES: readonly string[] = [
  'LOAD',
  'DISC',
  'GTIN',
  'GTOT',
  'STUF',
  'STRP',
  'PICK',
  'DROP',
  'INSP',
  'RSEA',
  'RMVD',
  'AVPU',
  'AVDO',
  'CUSS',
  'CUSI',
  'CUSR',
];

/** eventType, inferred from the type codes when the discriminator is missing (older formats). */
function eventTypeOf(o: Obj): 'TRANSPORT' | 'EQUIPMENT' | 'SHIPMENT' | null {
  const declared = code(o.eventType);
  if (declared === 'TRANSPORT' || declared === 'EQUIPMENT' || declared === 'SHIPMENT') return declared;
  if (code(o.transportEventTypeCode)) return 'TRANSPORT';
  if (code(o.equipmentEventTypeCode)) return 'EQUIPMENT';
  if (code(o.shipmentEventTypeCode)) return 'SHIPMENT';
  const flat = code(o.eventTypeCode);
  if (!flat) return null;
  if (TRANSPORT_CODES.includes(flat)) return 'TRANSPORT';
  if (EQUIPMENT_CODES.includes(flat)) return 'EQUIPMENT';
  return 'SHIPMENT';
}

function documentReferences(v: unknown): { type: string; value: string }[] {
  if (!Array.isArray(v)) return [];
  const out: { type: string; value: string }[] = [];
  for (const item of v.slice(0, 50)) {
    const o = obj(item);
    const type = code(o?.documentReferenceType);
    const value = str(o?.documentReferenceValue);
    if (type && value) out.push({ type, value });
  }
  return out;
}

/** `equipmentReference`, else a `references[]` entry of type EQ. */
function equipmentReferenceOf(o: Obj): string | null {
  const direct = normalizeEquipmentReference(o.equipmentReference);
  if (direct) return direct;
  if (!Array.isArray(o.references)) return null;
  for (const r of o.references.slice(0, 50)) {
    const ro = obj(r);
    if (code(ro?.referenceType) === 'EQ') {
      const v = normalizeEquipmentReference(ro?.referenceValue);
      if (v) return v;
    }
  }
  return null;
}

function firstSeal(v: unknown): string | null {
  if (!Array.isArray(v)) return null;
  for (const s of v.slice(0, 10)) {
    const n = str(obj(s)?.sealNumber);
    if (n) return n;
  }
  return null;
}

export function classifierOf(v: unknown): DcsaClassifier | null {
  const c = code(v);
  return c === 'ACT' || c === 'EST' || c === 'PLN' ? c : null;
}

export function timeString(v: unknown): string | null {
  return typeof v === 'string' && v.trim().length > 0 && v.length <= 64 ? v.trim() : null;
}

/** The carrier's id for an event: `eventID`, or MSC's `eventId`. */
export function eventIdOf(raw: unknown): string | null {
  const o = obj(raw);
  return o ? (str(o.eventID) ?? str(o.eventId)) : null;
}

/**
 * Parses one raw event. Returns null when the value is not an event we can use: not an object,
 * no recognisable event type or type code. Anything else missing becomes null.
 */
export function parseDcsaEvent(raw: unknown): ParsedEvent | null {
  try {
    return parseUnsafe(raw);
  } catch {
    return null; // belt and braces: getters or proxies in odd input must not escape
  }
}

function parseUnsafe(raw: unknown): ParsedEvent | null {
  const o = obj(raw);
  if (!o) return null;
  const type = eventTypeOf(o);
  if (!type) return null;
  const base: ParsedBase = {
    eventId: eventIdOf(o),
    // Shipment events are ACT by nature; the field is required but sometimes omitted.
    classifier: classifierOf(o.eventClassifierCode) ?? (type === 'SHIPMENT' ? 'ACT' : null),
    eventDateTime: timeString(o.eventDateTime),
    eventCreatedDateTime: timeString(o.eventCreatedDateTime) ?? timeString(o.eventUpdatedDateTime),
    documentReferences: documentReferences(o.documentReferences),
  };
  if (!base.classifier) return null;
  if (type === 'TRANSPORT') {
    const c = code(o.transportEventTypeCode) ?? code(o.eventTypeCode);
    if (!c) return null;
    return { ...base, eventType: type, code: c, transportCall: transportCall(o.transportCall) };
  }
  if (type === 'EQUIPMENT') {
    const c = code(o.equipmentEventTypeCode) ?? code(o.eventTypeCode);
    if (!c) return null;
    const empty = code(o.emptyIndicatorCode);
    const iso = str(o.ISOEquipmentCode) ?? str(o.isoEquipmentCode);
    return {
      ...base,
      eventType: type,
      code: c,
      emptyIndicator: empty === 'EMPTY' || empty === 'LADEN' ? empty : null,
      equipmentReference: equipmentReferenceOf(o),
      isoEquipmentCode: iso && /^[A-Za-z0-9]{4}$/.test(iso) ? iso.toUpperCase() : null,
      sealNumber: firstSeal(o.seals),
      eventLocation: facility(obj(o.eventLocation)),
      transportCall: transportCall(o.transportCall),
    };
  }
  const c = code(o.shipmentEventTypeCode) ?? code(o.eventTypeCode);
  if (!c) return null;
  return {
    ...base,
    eventType: type,
    code: c,
    documentTypeCode: code(o.documentTypeCode) ?? code(o.shipmentInformationTypeCode),
    documentId: str(o.documentID) ?? str(o.documentId) ?? str(o.shipmentID),
  };
}
