import { hashInt, simUuid } from './hash.ts';
import type { Place, Vessel } from './places.ts';
import { localIso, utcIso } from './time.ts';

// Builds DCSA Track & Trace 2.2 event objects (SHIPMENT, TRANSPORT, EQUIPMENT) exactly as the
// 2.2 schema shapes them. Event ids hash the shipment id and the event's position in the journey,
// so a journey rebuilt from the same number yields the same ids.

export type EventType = 'SHIPMENT' | 'TRANSPORT' | 'EQUIPMENT';
export type Classifier = 'PLN' | 'EST' | 'ACT';
export type Mode = 'VESSEL' | 'BARGE' | 'RAIL' | 'TRUCK';

export interface DcsaLocation {
  locationName: string;
  UNLocationCode: string;
  facilityCode?: string;
  facilityCodeListProvider?: 'SMDG';
}

export interface DcsaVessel {
  vesselIMONumber: string;
  vesselName: string;
  vesselFlag: string;
  vesselCallSignNumber: string;
  vesselOperatorCarrierCode: string;
  vesselOperatorCarrierCodeListProvider: 'NMFTA';
}

export interface DcsaTransportCall {
  transportCallID: string;
  transportCallSequenceNumber?: number;
  carrierServiceCode?: string;
  exportVoyageNumber?: string;
  importVoyageNumber?: string;
  UNLocationCode: string;
  facilityCode?: string;
  facilityCodeListProvider?: 'SMDG';
  facilityTypeCode: string;
  modeOfTransport: Mode;
  location: DcsaLocation;
  vessel?: DcsaVessel;
}

export interface DocumentReference {
  documentReferenceType: 'BKG' | 'TRD';
  documentReferenceValue: string;
}

export interface DcsaReference {
  referenceType: 'EQ';
  referenceValue: string;
}

export interface DcsaEvent {
  eventID: string;
  eventType: EventType;
  eventClassifierCode: Classifier;
  eventDateTime: string;
  eventCreatedDateTime: string;
  shipmentEventTypeCode?: string;
  documentTypeCode?: string;
  documentID?: string;
  reason?: string;
  transportEventTypeCode?: 'ARRI' | 'DEPA';
  delayReasonCode?: string;
  changeRemark?: string;
  equipmentEventTypeCode?: string;
  equipmentReference?: string;
  ISOEquipmentCode?: string;
  emptyIndicatorCode?: 'EMPTY' | 'LADEN';
  eventLocation?: DcsaLocation;
  transportCall?: DcsaTransportCall;
  documentReferences?: DocumentReference[];
  references?: DcsaReference[];
  seals?: { sealNumber: string; sealSource: 'CAR'; sealType: 'BLT' }[];
}

/** An event plus the instants the server filters and sorts on. */
export interface SimEvent {
  createdMs: number;
  eventMs: number;
  event: DcsaEvent;
  /** JSON of `event`, filled on first use: busy pollers then cost a string join, not a stringify. */
  json?: string;
  /** The same for its 3.0.0 shape (sim/v3.ts). */
  v3json?: string;
}

export interface ContainerInfo {
  number: string;
  isoCode: string;
  seal: string;
}

/** A stop of a vessel, barge, train or truck: becomes a DCSA transportCall. */
export interface Call {
  id: string;
  mode: Mode;
  place: Place;
  vessel?: Vessel;
  service?: string;
  voyage?: string;
  sequence?: number;
}

export interface BuilderOptions {
  /** Seed for event ids: the shipment id (reference kind plus number). */
  seed: string;
  billOfLading: string;
  booking: string;
  containers: ContainerInfo[];
  /** No event is created before this instant (a carrier that publishes late, e.g. manifest delay). */
  notBeforeMs?: number;
  /** Shipment events created before this instant predate container assignment: no EQ references. */
  equipmentKnownFromMs?: number;
}

export class EventBuilder {
  readonly #o: BuilderOptions;
  readonly #events: SimEvent[] = [];
  #index = 0;

  constructor(options: BuilderOptions) {
    this.#o = options;
  }

  shipment(code: string, docType: 'BKG' | 'TRD', atMs: number, reason?: string): void {
    // Shipment events have no location, and eventDateTime must equal eventCreatedDateTime.
    const created = this.#clamp(atMs);
    const event: DcsaEvent = {
      ...this.#head('SHIPMENT', 'ACT', utcIso(created), created),
      shipmentEventTypeCode: code,
      documentTypeCode: docType,
      documentID: docType === 'BKG' ? this.#o.booking : this.#o.billOfLading,
    };
    if (reason) event.reason = reason;
    if (created >= (this.#o.equipmentKnownFromMs ?? 0) && this.#o.containers.length > 0) {
      event.references = this.#eqReferences();
    }
    this.#push(created, created, event);
  }

  transport(
    code: 'ARRI' | 'DEPA',
    classifier: Classifier,
    call: Call,
    atMs: number,
    createdMs: number,
    extra: { delayReasonCode?: string; changeRemark?: string } = {},
  ): void {
    const created = this.#clamp(classifier === 'ACT' ? atMs + this.#lag() : createdMs);
    const event: DcsaEvent = {
      ...this.#head('TRANSPORT', classifier, localIso(atMs, call.place.timeZone), created),
      transportEventTypeCode: code,
    };
    if (extra.delayReasonCode) event.delayReasonCode = extra.delayReasonCode;
    if (extra.changeRemark) event.changeRemark = extra.changeRemark;
    event.transportCall = transportCall(call);
    event.documentReferences = this.#documentReferences();
    if (this.#o.containers.length > 0) event.references = this.#eqReferences();
    this.#push(created, atMs, event);
  }

  equipment(
    container: ContainerInfo,
    code: string,
    empty: 'EMPTY' | 'LADEN',
    call: Call,
    atMs: number,
    eventLocation?: Place,
  ): void {
    const created = this.#clamp(atMs + this.#lag());
    const event: DcsaEvent = {
      ...this.#head('EQUIPMENT', 'ACT', localIso(atMs, call.place.timeZone), created),
      equipmentEventTypeCode: code,
      equipmentReference: container.number,
      ISOEquipmentCode: container.isoCode,
      emptyIndicatorCode: empty,
    };
    if (eventLocation) event.eventLocation = location(eventLocation);
    event.transportCall = transportCall(call);
    event.documentReferences = this.#documentReferences();
    if (empty === 'LADEN') event.seals = [{ sealNumber: container.seal, sealSource: 'CAR', sealType: 'BLT' }];
    this.#push(created, atMs, event);
  }

  /** The journey's events in publication order (created time, then build order). */
  finish(): SimEvent[] {
    return this.#events.sort((a, b) => a.createdMs - b.createdMs);
  }

  #head(type: EventType, classifier: Classifier, eventDateTime: string, createdMs: number) {
    return {
      eventID: simUuid(`${this.#o.seed}#${this.#index}`),
      eventType: type,
      eventClassifierCode: classifier,
      eventDateTime,
      eventCreatedDateTime: utcIso(createdMs),
    };
  }

  #push(createdMs: number, eventMs: number, event: DcsaEvent): void {
    this.#events.push({ createdMs, eventMs, event });
    this.#index++;
  }

  // Actual events reach the carrier's system a few minutes after they happen.
  #lag(): number {
    return hashInt(`${this.#o.seed}#lag#${this.#index}`, 16) * 60_000;
  }

  #clamp(ms: number): number {
    return Math.max(ms, this.#o.notBeforeMs ?? ms);
  }

  #documentReferences(): DocumentReference[] {
    return [
      { documentReferenceType: 'BKG', documentReferenceValue: this.#o.booking },
      { documentReferenceType: 'TRD', documentReferenceValue: this.#o.billOfLading },
    ];
  }

  #eqReferences(): DcsaReference[] {
    return this.#o.containers.map((c) => ({ referenceType: 'EQ', referenceValue: c.number }));
  }
}

function location(place: Place): DcsaLocation {
  const loc: DcsaLocation = { locationName: place.name, UNLocationCode: place.locode };
  if (place.facilityCode) {
    loc.facilityCode = place.facilityCode;
    loc.facilityCodeListProvider = 'SMDG';
  }
  return loc;
}

function transportCall(call: Call): DcsaTransportCall {
  const tc: Partial<DcsaTransportCall> = { transportCallID: call.id };
  if (call.sequence !== undefined) tc.transportCallSequenceNumber = call.sequence;
  if (call.service) tc.carrierServiceCode = call.service;
  if (call.voyage) {
    tc.exportVoyageNumber = call.voyage;
    tc.importVoyageNumber = call.voyage;
  }
  tc.UNLocationCode = call.place.locode;
  if (call.place.facilityCode) {
    tc.facilityCode = call.place.facilityCode;
    tc.facilityCodeListProvider = 'SMDG';
  }
  tc.facilityTypeCode = call.place.facilityTypeCode;
  tc.modeOfTransport = call.mode;
  tc.location = location(call.place);
  if (call.vessel) {
    tc.vessel = {
      vesselIMONumber: call.vessel.imo,
      vesselName: call.vessel.name,
      vesselFlag: call.vessel.flag,
      vesselCallSignNumber: call.vessel.callSign,
      vesselOperatorCarrierCode: 'TEST',
      vesselOperatorCarrierCodeListProvider: 'NMFTA',
    };
  }
  return tc as DcsaTransportCall;
}
