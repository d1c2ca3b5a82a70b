// DCSA T&T 3.0.0 answer -> CarrierSnapshot (src/engine/snapshot.ts). Pure and total. Shipment,
// transport and equipment events parse into 2.2's internal form and share its mapping
// (dcsa/snapshot.ts), so both versions of one journey read the same; IoT and reefer events become
// records with a reading (their container, time and place) and no event; anything unreadable is
// kept opaque, as with 2.2.

import type { CarrierRecord, CarrierSnapshot } from '../../engine/snapshot.ts';
import { snapshotEvent } from '../dcsa/snapshot.ts';
import { eventIdOfV3, isReading, parseDcsaV3Event } from './parse.ts';

/** One raw 3.0.0 event as a snapshot record. */
export function dcsaV3Record(raw: unknown): CarrierRecord {
  const p = parseDcsaV3Event(raw);
  const carrierId = eventIdOfV3(raw);
  if (p === null) return { raw, carrierId, event: null, label: { type: null, code: null, classifier: null } };
  if (isReading(p)) {
    return {
      raw,
      carrierId,
      event: null,
      label: { type: p.eventType, code: p.code, classifier: p.classifier },
      reading: {
        container: p.equipmentReference,
        eventTime: p.eventDateTime,
        recordedTime: p.eventUpdatedDateTime,
        locode: p.locode,
      },
    };
  }
  return {
    raw,
    carrierId,
    event: snapshotEvent(p),
    label: {
      type: p.eventType,
      code: [p.code, p.eventType === 'EQUIPMENT' ? p.emptyIndicator : null].filter(Boolean).join(' '),
      classifier: p.classifier,
    },
  };
}

/** A 3.0.0 answer (its list of raw events) as a carrier snapshot. */
export function dcsaV3Snapshot(rawEvents: readonly unknown[]): CarrierSnapshot {
  return { records: (Array.isArray(rawEvents) ? rawEvents : []).map(dcsaV3Record) };
}
