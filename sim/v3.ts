import type { DcsaEvent, DcsaLocation, DcsaTransportCall } from './events.ts';

// DCSA Track & Trace 3.0.0 beside 2.2: the simulator's journeys are built once, as 2.2 events
// (events.ts), and GET /v3/events answers the same events in 3.0.0's shape, so every scenario
// reads the same through either adapter. The 3.0.0 query is the 2.2 one in other words
// (eventTypes for eventType, eventUpdatedDateTimeMin/Max for the created-time range: the
// simulator's events are never updated after publication, so updated time = created time).

export const API_VERSION_V3 = '3.0.0';

type Json = Record<string, unknown>;

/** The 3.0.0 query as the 2.2 query the endpoint understands. */
export function v2Params(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [name, value] of params) {
    if (name === 'eventTypes') out.append('eventType', value);
    else if (name === 'eventUpdatedDateTimeMin') out.append('eventCreatedDateTime:gte', value);
    else if (name === 'eventUpdatedDateTimeMax') out.append('eventCreatedDateTime:lte', value);
    else if (['carrierBookingReference', 'transportDocumentReference', 'equipmentReference'].includes(name))
      out.append(name, value);
    else if (name === 'limit' || name === 'cursor') out.append(name, value);
    // Anything else is ignored, as the standard allows.
  }
  return out;
}

function location(l: DcsaLocation, facilityTypeCode?: string): Json {
  const out: Json = { locationName: l.locationName, UNLocationCode: l.UNLocationCode };
  if (facilityTypeCode) out.facilityTypeCode = facilityTypeCode;
  if (l.facilityCode) out.facility = { facilityCode: l.facilityCode, facilityCodeListProvider: 'SMDG' };
  return out;
}

function transportCall(tc: DcsaTransportCall): Json {
  const out: Json = { transportCallReference: tc.transportCallID };
  if (tc.transportCallSequenceNumber !== undefined)
    out.transportCallSequenceNumber = tc.transportCallSequenceNumber;
  out.modeOfTransport = tc.modeOfTransport;
  if (tc.carrierServiceCode) out.serviceCodeOrReference = { carrierServiceCode: tc.carrierServiceCode };
  if (tc.exportVoyageNumber)
    out.exportVoyageNumberOrReference = { carrierVoyageNumber: tc.exportVoyageNumber };
  if (tc.importVoyageNumber)
    out.importVoyageNumberOrReference = { carrierVoyageNumber: tc.importVoyageNumber };
  if (tc.vessel) {
    out.vesselTransport = {
      vesselIMONumber: tc.vessel.vesselIMONumber,
      vesselName: tc.vessel.vesselName,
      vesselFlag: tc.vessel.vesselFlag,
      vesselCallSign: tc.vessel.vesselCallSignNumber,
    };
  }
  return out;
}

/** One 2.2 event in 3.0.0's shape. */
export function toV3(e: DcsaEvent): Json {
  const out: Json = {
    eventRouting: {
      originatingParty: {
        partyCode: 'SIML',
        codeListProvider: 'SMDG',
        codeListName: 'LCL',
        partyFunction: 'CA',
      },
    },
    eventID: e.eventID,
    eventDateTime: e.eventDateTime,
    eventUpdatedDateTime: e.eventCreatedDateTime,
  };
  // 3.0.0's transport call has no place: the event's location is it (a gate event keeps its own).
  const tc = e.transportCall;
  if (e.eventLocation) out.eventLocation = location(e.eventLocation);
  else if (tc) out.eventLocation = location(tc.location, tc.facilityTypeCode);
  const classification: Json = { eventTypeCode: e.eventType, eventClassifierCode: e.eventClassifierCode };
  if (e.shipmentEventTypeCode) classification.shipmentEventTypeCode = e.shipmentEventTypeCode;
  if (e.transportEventTypeCode) classification.transportEventTypeCode = e.transportEventTypeCode;
  if (e.equipmentEventTypeCode) classification.equipmentEventTypeCode = e.equipmentEventTypeCode;
  out.eventClassification = classification;

  const shipment: Json = {};
  if (e.eventType === 'SHIPMENT' && e.documentTypeCode && e.documentID)
    shipment.documentReference = { typeCode: e.documentTypeCode, reference: e.documentID };
  // A shipment event's primary reference is its own document; the others go after it.
  const refs = (e.documentReferences ?? []).map((d) => ({
    typeCode: d.documentReferenceType,
    reference: d.documentReferenceValue,
  }));
  if (e.eventType !== 'SHIPMENT' && refs.length > 0) shipment.documentReference = refs.shift();
  if (refs.length > 0) shipment.additionalDocumentReferences = refs;
  if (e.references?.length)
    shipment.shipmentReferences = e.references.map((r) => ({
      typeCode: r.referenceType,
      reference: r.referenceValue,
    }));
  if (e.reason) shipment.reason = e.reason;
  if (Object.keys(shipment).length > 0) out.shipmentDetails = shipment;

  if (tc) {
    const transport: Json = { transportCall: transportCall(tc) };
    if (e.delayReasonCode) transport.delayReasonCodes = [e.delayReasonCode];
    if (e.changeRemark) transport.changeRemark = e.changeRemark;
    out.transportDetails = transport;
  }
  if (e.equipmentReference) {
    const equipment: Json = { equipmentReference: e.equipmentReference };
    if (e.ISOEquipmentCode) equipment.ISOEquipmentCode = e.ISOEquipmentCode;
    if (e.emptyIndicatorCode) equipment.emptyIndicatorCode = e.emptyIndicatorCode;
    if (e.seals?.length)
      equipment.seals = e.seals.map((s) => ({
        number: s.sealNumber,
        source: s.sealSource,
        type: s.sealType,
      }));
    out.equipmentDetails = equipment;
  }
  return out;
}

/** A 3.0.0 error body (GetEventsError). */
export function feedbackError(status: number, message: string, headers: Record<string, string> = {}) {
  return {
    status,
    headers: { 'content-type': 'application/json', 'API-Version': API_VERSION_V3, ...headers },
    body: JSON.stringify({ feedbackElements: [{ severity: 'ERROR', message }] }),
  };
}
