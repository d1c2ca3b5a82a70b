// Lenient parsing of one raw DCSA T&T 3.0.0 event into the same internal form as 2.2's parser
// (dcsa/parse.ts), so both versions reach the engine through one snapshot mapping. Pure and
// total: any input gives a ParsedEvent, a ParsedReading (IoT and reefer events: facts about a
// container, not transport milestones) or null, never an exception.
//
// 3.0.0 moves the 2.2 fields into objects: `eventClassification` (type, classifier, codes),
// `shipmentDetails` (document references), `transportDetails.transportCall` (no place of its own:
// the place is the event's `eventLocation`), `equipmentDetails`; eventUpdatedDateTime replaces
// eventCreatedDateTime as the "which version is newer" clock.

import {
  classifierOf,
  code,
  type DcsaClassifier,
  type DcsaMode,
  imo,
  int,
  normalizeEquipmentReference,
  normalizeLocode,
  type Obj,
  obj,
  type ParsedEvent,
  type ParsedFacility,
  type ParsedTransportCall,
  str,
  timeString,
} from '../dcsa/parse.ts';

/** An IoT or reefer event: kept with its readings, never turned into a transport event. */
export interface ParsedReading {
  eventType: 'IOT' | 'REEFER';
  eventId: string | null;
  classifier: DcsaClassifier | null;
  /** iotEventTypeCode / reeferEventTypeCode, plus the IoT event code (DETC DRO). */
  code: string | null;
  equipmentReference: string | null;
  eventDateTime: string | null;
  eventUpdatedDateTime: string | null;
  locode: string | null;
}

export const isReading = (p: ParsedEvent | ParsedReading): p is ParsedReading =>
  p.eventType === 'IOT' || p.eventType === 'REEFER';

const MODES: readonly string[] = ['VESSEL', 'BARGE', 'RAIL', 'TRUCK'];

/** `eventLocation`: UN/LOCODE, the facility (nested in 3.0.0) and its kind. */
export function location(v: unknown): ParsedFacility | null {
  const o = obj(v);
  if (!o) return null;
  const f = obj(o.facility);
  const place: ParsedFacility = {
    locode: normalizeLocode(o.UNLocationCode),
    facilityCode: str(f?.facilityCode) ?? str(o.facilityCode),
    facilityProvider: code(f?.facilityCodeListProvider) ?? code(o.facilityCodeListProvider),
    facilityTypeCode: code(o.facilityTypeCode),
  };
  return place.locode || place.facilityCode || place.facilityTypeCode ? place : null;
}

const voyage = (v: unknown): string | null =>
  str(obj(v)?.carrierVoyageNumber) ?? str(obj(v)?.universalVoyageReference);

function transportCall(v: unknown, place: ParsedFacility | null): ParsedTransportCall | null {
  const o = obj(v);
  if (!o) return null;
  const vessel = obj(o.vesselTransport);
  const service = obj(o.serviceCodeOrReference);
  const mode = code(o.modeOfTransport);
  return {
    transportCallId: str(o.transportCallReference),
    mode: mode && MODES.includes(mode) ? (mode as DcsaMode) : null,
    serviceCode: str(service?.carrierServiceCode) ?? str(service?.universalServiceReference),
    exportVoyage: voyage(o.exportVoyageNumberOrReference),
    importVoyage: voyage(o.importVoyageNumberOrReference),
    sequence: int(o.transportCallSequenceNumber),
    vesselImo: imo(vessel?.vesselIMONumber),
    vesselName: str(vessel?.vesselName),
    // 3.0.0's call has no place of its own: it happened where the event did.
    locode: place?.locode ?? null,
    facilityCode: place?.facilityCode ?? null,
    facilityProvider: place?.facilityProvider ?? null,
    facilityTypeCode: place?.facilityTypeCode ?? null,
  };
}

function documentReference(v: unknown): { type: string; value: string } | null {
  const o = obj(v);
  const type = code(o?.typeCode);
  const value = str(o?.reference);
  return type && value ? { type, value } : null;
}

/** The primary document reference (when asked) first, then the additional ones. */
function documentReferences(details: Obj | null, primary: boolean): { type: string; value: string }[] {
  const more = details?.additionalDocumentReferences;
  const all = [
    primary ? details?.documentReference : null,
    ...(Array.isArray(more) ? more.slice(0, 50) : []),
  ];
  return all.map(documentReference).filter((r): r is { type: string; value: string } => r !== null);
}

function firstSeal(v: unknown): string | null {
  if (!Array.isArray(v)) return null;
  for (const s of v.slice(0, 10)) {
    const n = str(obj(s)?.number);
    if (n) return n;
  }
  return null;
}

const EVENT_TYPES = ['SHIPMENT', 'TRANSPORT', 'EQUIPMENT', 'IOT', 'REEFER'] as const;
type EventType = (typeof EVENT_TYPES)[number];

/** The declared type, else the one whose type code is present. */
function eventTypeOf(c: Obj): EventType | null {
  const declared = code(c.eventTypeCode);
  if (declared && (EVENT_TYPES as readonly string[]).includes(declared)) return declared as EventType;
  if (code(c.transportEventTypeCode)) return 'TRANSPORT';
  if (code(c.equipmentEventTypeCode)) return 'EQUIPMENT';
  if (code(c.shipmentEventTypeCode)) return 'SHIPMENT';
  if (code(c.reeferEventTypeCode)) return 'REEFER';
  if (code(c.iotEventTypeCode)) return 'IOT';
  return null;
}

/** The carrier's id for an event (`eventID`). */
export function eventIdOfV3(raw: unknown): string | null {
  return str(obj(raw)?.eventID);
}

/** Whether the carrier withdrew this event (`isRetracted`): its data is to be ignored. */
export function isRetracted(raw: unknown): boolean {
  return obj(raw)?.isRetracted === true;
}

/**
 * Parses one raw 3.0.0 event. Null when it is not an event we can use (not an object, retracted,
 * no recognisable type or type code, no classifier).
 */
export function parseDcsaV3Event(raw: unknown): ParsedEvent | ParsedReading | null {
  try {
    return parseUnsafe(raw);
  } catch {
    return null; // belt and braces: getters or proxies in odd input must not escape
  }
}

function parseUnsafe(raw: unknown): ParsedEvent | ParsedReading | null {
  const o = obj(raw);
  if (!o || o.isRetracted === true) return null;
  const c = obj(o.eventClassification);
  if (!c) return null;
  const type = eventTypeOf(c);
  if (!type) return null;
  // Shipment events are ACT by nature; the field is required but sometimes omitted.
  const classifier = classifierOf(c.eventClassifierCode) ?? (type === 'SHIPMENT' ? 'ACT' : null);
  const place = location(o.eventLocation);
  const equipment = obj(o.equipmentDetails);
  if (type === 'IOT' || type === 'REEFER') {
    const typeCode = code(type === 'IOT' ? c.iotEventTypeCode : c.reeferEventTypeCode);
    const detail = type === 'IOT' ? code(obj(o.iotDetails)?.iotEventCode) : null;
    return {
      eventType: type,
      eventId: str(o.eventID),
      classifier,
      code: [typeCode, detail].filter(Boolean).join(' ') || null,
      equipmentReference: normalizeEquipmentReference(equipment?.equipmentReference),
      eventDateTime: timeString(o.eventDateTime),
      eventUpdatedDateTime: timeString(o.eventUpdatedDateTime),
      locode: place?.locode ?? null,
    };
  }
  if (!classifier) return null;
  const shipment = obj(o.shipmentDetails);
  const base = {
    eventId: str(o.eventID),
    classifier,
    eventDateTime: timeString(o.eventDateTime),
    eventCreatedDateTime: timeString(o.eventUpdatedDateTime),
    // A shipment event's primary reference is its document (documentTypeCode/documentId, as in
    // 2.2); for the other types it is one of the documents the event concerns.
    documentReferences: documentReferences(shipment, type !== 'SHIPMENT'),
  };
  const call = transportCall(obj(o.transportDetails)?.transportCall, place);
  if (type === 'TRANSPORT') {
    const tc = code(c.transportEventTypeCode);
    return tc ? { ...base, eventType: type, code: tc, transportCall: call } : null;
  }
  if (type === 'EQUIPMENT') {
    const ec = code(c.equipmentEventTypeCode);
    if (!ec) return null;
    const empty = code(equipment?.emptyIndicatorCode);
    const iso = str(equipment?.ISOEquipmentCode);
    return {
      ...base,
      eventType: type,
      code: ec,
      emptyIndicator: empty === 'EMPTY' || empty === 'LADEN' ? empty : null,
      equipmentReference: normalizeEquipmentReference(equipment?.equipmentReference),
      isoEquipmentCode: iso && /^[A-Za-z0-9]{4}$/.test(iso) ? iso.toUpperCase() : null,
      sealNumber: firstSeal(equipment?.seals),
      eventLocation: place,
      transportCall: call,
    };
  }
  const sc = code(c.shipmentEventTypeCode);
  if (!sc) return null;
  const primary = documentReference(shipment?.documentReference);
  return {
    ...base,
    eventType: 'SHIPMENT',
    code: sc,
    documentTypeCode: primary?.type ?? null,
    documentId: primary?.value ?? null,
  };
}
