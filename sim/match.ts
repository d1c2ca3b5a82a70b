import type { DcsaEvent } from './events.ts';

// How DCSA T&T 2.2 reference filters select events (Conformance-Gateway TntFilterParameter):
// booking and B/L references match documentReferences on TRANSPORT/EQUIPMENT events and
// documentID + documentTypeCode on SHIPMENT events; equipment references match
// equipmentReference on EQUIPMENT events and EQ references on every event type.

export type ReferenceKind = 'TRD' | 'BKG' | 'EQ';

export function matchesReference(e: DcsaEvent, kind: ReferenceKind, values: ReadonlySet<string>): boolean {
  if (kind === 'EQ') {
    if (e.equipmentReference !== undefined && values.has(e.equipmentReference)) return true;
    return e.references?.some((r) => r.referenceType === 'EQ' && values.has(r.referenceValue)) ?? false;
  }
  if (e.eventType === 'SHIPMENT') return e.documentTypeCode === kind && values.has(e.documentID ?? '');
  return (
    e.documentReferences?.some(
      (r) => r.documentReferenceType === kind && values.has(r.documentReferenceValue),
    ) ?? false
  );
}
