// Terse builders for DCSA T&T v2.2 events in tests. Field names follow the 2.2 schema.

export interface CallOptions {
  mode?: 'VESSEL' | 'BARGE' | 'RAIL' | 'TRUCK';
  imo?: string;
  vessel?: string;
  exp?: string;
  imp?: string;
  id?: string;
  facility?: string;
  facilityType?: string;
  seq?: number;
}

export function call(locode: string, o: CallOptions = {}): Record<string, unknown> {
  const mode = o.mode ?? 'VESSEL';
  const c: Record<string, unknown> = {
    transportCallID: o.id ?? `${locode}-${o.imo ?? mode}-${o.exp ?? o.imp ?? ''}`,
    modeOfTransport: mode,
    UNLocationCode: locode,
  };
  if (o.exp) c.exportVoyageNumber = o.exp;
  if (o.imp) c.importVoyageNumber = o.imp;
  if (o.facility) {
    c.facilityCode = o.facility;
    c.facilityCodeListProvider = 'SMDG';
  }
  if (o.facilityType) c.facilityTypeCode = o.facilityType;
  if (o.seq !== undefined) c.transportCallSequenceNumber = o.seq;
  if (o.imo || o.vessel)
    c.vessel = { vesselIMONumber: o.imo ?? '9999999', vesselName: o.vessel ?? 'Test Vessel' };
  return c;
}

let counter = 0;
const nextId = () => `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`;

interface Common {
  id?: string;
  cls?: 'ACT' | 'EST' | 'PLN';
  at: string;
  created?: string;
}

export function transport(code: 'ARRI' | 'DEPA', transportCall: Record<string, unknown>, o: Common) {
  return {
    eventID: o.id ?? nextId(),
    eventType: 'TRANSPORT',
    eventClassifierCode: o.cls ?? 'ACT',
    eventDateTime: o.at,
    eventCreatedDateTime: o.created ?? o.at,
    transportEventTypeCode: code,
    transportCall,
  };
}

export function equipment(
  code: string,
  o: Common & {
    container?: string | null;
    empty?: 'EMPTY' | 'LADEN';
    call?: Record<string, unknown>;
    location?: Record<string, unknown>;
    iso?: string;
    seal?: string;
  },
) {
  const e: Record<string, unknown> = {
    eventID: o.id ?? nextId(),
    eventType: 'EQUIPMENT',
    eventClassifierCode: o.cls ?? 'ACT',
    eventDateTime: o.at,
    eventCreatedDateTime: o.created ?? o.at,
    equipmentEventTypeCode: code,
    emptyIndicatorCode: o.empty ?? 'LADEN',
  };
  if (o.container !== null) e.equipmentReference = o.container ?? 'MSKU7000013';
  if (o.call) e.transportCall = o.call;
  if (o.location) e.eventLocation = o.location;
  if (o.iso) e.ISOEquipmentCode = o.iso;
  if (o.seal) e.seals = [{ sealNumber: o.seal, sealType: 'BLT' }];
  return e;
}

export function shipment(code: string, documentTypeCode: string, at: string, documentID = 'BK1') {
  return {
    eventID: nextId(),
    eventType: 'SHIPMENT',
    eventClassifierCode: 'ACT',
    eventDateTime: at,
    eventCreatedDateTime: at,
    shipmentEventTypeCode: code,
    documentTypeCode,
    documentID,
  };
}

/** A direct CNYTN -> USLAX journey for one container, all actual. */
export function directJourney(container = 'MSKU7000013'): Record<string, unknown>[] {
  const pol = call('CNYTN', { imo: '9778791', vessel: 'Maersk Essen', exp: '417E', facility: 'YICT' });
  const pod = call('USLAX', { imo: '9778791', vessel: 'Maersk Essen', imp: '417E', facility: 'APMT' });
  return [
    equipment('GTIN', { container, at: '2024-05-01T10:00:00+08:00', location: { UNLocationCode: 'CNYTN' } }),
    equipment('LOAD', { container, at: '2024-05-03T05:00:00+08:00', call: pol, iso: '45G1' }),
    transport('DEPA', pol, { at: '2024-05-03T12:00:00+08:00' }),
    transport('ARRI', pod, { at: '2024-05-17T06:00:00-07:00' }),
    equipment('DISC', { container, at: '2024-05-18T02:00:00-07:00', call: pod }),
    equipment('GTOT', { container, at: '2024-05-20T08:00:00-07:00', location: { UNLocationCode: 'USLAX' } }),
  ];
}
