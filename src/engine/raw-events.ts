import { createHash, randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CarrierRecord } from './snapshot.ts';

// The carrier's records as received (raw_events), beside the normalized state store.ts writes.

/** Keeps the carrier's records as received: upsert by carrier event id (a hash when it has none). */
export async function storeRawEvents(
  tx: Kysely<DB>,
  accountId: string,
  shipmentId: string,
  records: readonly CarrierRecord[],
): Promise<void> {
  const rows = new Map<string, Record<string, unknown>>();
  for (const r of records) {
    const payload = JSON.stringify(r.raw ?? null);
    const id = r.carrierId ?? `sha256:${createHash('sha256').update(payload).digest('hex')}`;
    const p = r.event;
    const tc = p && p.kind !== 'shipment' ? p.call : null;
    // IoT and reefer readings (DCSA 3.0.0) name their container, time and place outside an event.
    const loc =
      (p?.kind === 'equipment' ? (p.place?.locode ?? tc?.locode) : tc?.locode) ?? r.reading?.locode ?? null;
    rows.set(id, {
      id: randomUUID(),
      account_id: accountId,
      shipment_id: shipmentId,
      carrier_event_id: id.slice(0, 200),
      equipment_reference: p?.kind === 'equipment' ? p.container : (r.reading?.container ?? null),
      event_type: r.label.type,
      event_code: r.label.code,
      classifier: r.label.classifier,
      event_at: safeDate(p?.eventTime ?? r.reading?.eventTime),
      event_created_at: safeDate(p?.recordedTime ?? r.reading?.recordedTime),
      location_locode: loc,
      vessel_name: tc?.vesselName ?? null,
      vessel_imo: tc?.vesselImo ?? null,
      voyage_number: tc?.exportVoyage ?? tc?.importVoyage ?? null,
      payload,
    });
  }
  const all = [...rows.values()];
  for (let i = 0; i < all.length; i += 500) {
    await tx
      .insertInto('raw_events')
      .values(all.slice(i, i + 500) as never)
      .onConflict((oc) =>
        oc
          .columns(['shipment_id', 'carrier_event_id'])
          .doUpdateSet({
            payload: (eb) => eb.ref('excluded.payload'),
            event_at: (eb) => eb.ref('excluded.event_at'),
            event_created_at: (eb) => eb.ref('excluded.event_created_at'),
          })
          .where(sql<boolean>`raw_events.payload is distinct from excluded.payload`),
      )
      .execute();
  }
}

function safeDate(s: string | null | undefined): string | null {
  if (!s) return null;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}
