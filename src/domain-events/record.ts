import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

export interface NewDomainEvent {
  event: string;
  account_id: string;
  tracking_request_id?: string | null;
  shipment_id?: string | null;
  container_id?: string | null;
  /** JSON:API type of the record the event is about (a notification's reference_object). */
  reference_type: string;
  /** Its id; for container_created_event / container_updated_event the domain event itself. */
  reference_id?: string;
  changeset?: Record<string, unknown> | null;
}

/**
 * Appends domain events. Call it inside the transaction that made the change, so the change and
 * its announcement commit together or not at all.
 */
export async function recordDomainEvents(tx: Kysely<DB>, events: NewDomainEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((e) => {
    const id = randomUUID();
    return {
      id,
      account_id: e.account_id,
      event: e.event,
      tracking_request_id: e.tracking_request_id ?? null,
      shipment_id: e.shipment_id ?? null,
      container_id: e.container_id ?? null,
      reference_type: e.reference_type,
      reference_id: e.reference_id ?? id,
      changeset: e.changeset ? JSON.stringify(e.changeset) : null,
    };
  });
  await tx.insertInto('domain_events').values(rows).execute();
  // One notification per event per subscribed, active webhook, in this same transaction: a crash
  // can lose neither the change nor its notifications.
  const ids = rows.map((r) => r.id);
  await sql`
    insert into webhook_notifications (id, account_id, webhook_id, domain_event_id, event, next_attempt_at)
    select gen_random_uuid(), d.account_id, w.id, d.id, d.event, now()
      from domain_events d
      join webhooks w on w.account_id = d.account_id and w.active and d.event = any (w.events)
     where d.id = any (${ids}::uuid[])
     order by d.seq, w.created_at`.execute(tx);
  return ids;
}
