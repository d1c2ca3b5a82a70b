// DCSA T&T v2.2 answer -> CarrierSnapshot (src/engine/snapshot.ts). Pure and total: every raw
// event becomes a record, read into the product's vocabulary when parse.ts can read it, kept
// opaque (and counted as skipped by the engine) when it cannot.

import type {
  CarrierRecord,
  CarrierSnapshot,
  Certainty,
  SnapshotCall,
  SnapshotEvent,
  TransportMode,
} from '../../engine/snapshot.ts';
import {
  type DcsaClassifier,
  type DcsaMode,
  eventIdOf,
  type ParsedEvent,
  type ParsedTransportCall,
  parseDcsaEvent,
} from './parse.ts';

const CERTAINTY: Record<DcsaClassifier, Certainty> = { ACT: 'actual', EST: 'estimated', PLN: 'planned' };
const MODE: Record<DcsaMode, TransportMode> = {
  VESSEL: 'vessel',
  BARGE: 'barge',
  RAIL: 'rail',
  TRUCK: 'truck',
};

function call(tc: ParsedTransportCall | null): SnapshotCall | null {
  return tc ? { ...tc, mode: tc.mode ? MODE[tc.mode] : null } : null;
}

/** One parsed DCSA event in the snapshot's vocabulary. */
export function snapshotEvent(p: ParsedEvent): SnapshotEvent {
  const base = {
    eventId: p.eventId,
    // parse.ts never returns an event without a classifier.
    certainty: CERTAINTY[p.classifier!],
    eventTime: p.eventDateTime,
    recordedTime: p.eventCreatedDateTime,
    documentReferences: p.documentReferences,
  };
  if (p.eventType === 'TRANSPORT')
    return { ...base, kind: 'transport', code: p.code, call: call(p.transportCall) };
  if (p.eventType === 'EQUIPMENT') {
    return {
      ...base,
      kind: 'equipment',
      code: p.code,
      fill: p.emptyIndicator === 'EMPTY' ? 'empty' : p.emptyIndicator === 'LADEN' ? 'laden' : null,
      container: p.equipmentReference,
      isoEquipmentCode: p.isoEquipmentCode,
      sealNumber: p.sealNumber,
      place: p.eventLocation,
      call: call(p.transportCall),
    };
  }
  return {
    ...base,
    kind: 'shipment',
    code: p.code,
    documentTypeCode: p.documentTypeCode,
    documentId: p.documentId,
  };
}

/** One raw DCSA event as a snapshot record. */
export function dcsaRecord(raw: unknown): CarrierRecord {
  const p = parseDcsaEvent(raw);
  return {
    raw,
    carrierId: eventIdOf(raw),
    event: p ? snapshotEvent(p) : null,
    label: {
      type: p?.eventType ?? null,
      code: p
        ? [p.code, p.eventType === 'EQUIPMENT' ? p.emptyIndicator : null].filter(Boolean).join(' ')
        : null,
      classifier: p?.classifier ?? null,
    },
  };
}

/** A DCSA answer (its list of raw events) as a carrier snapshot. */
export function dcsaSnapshot(rawEvents: readonly unknown[]): CarrierSnapshot {
  return { records: (Array.isArray(rawEvents) ? rawEvents : []).map(dcsaRecord) };
}
