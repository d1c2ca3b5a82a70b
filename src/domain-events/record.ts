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
  /** Where a change of a tracked fact came from; its changeset is then part of the change history. */
  source?: ChangeSource | null;
}

/** The origins of a change (migrations/0052): a carrier look-up, a terminal check, a user's edit. */
export const CHANGE_SOURCES = ['shipping_line', 'terminal', 'user'] as const;
export type ChangeSource = (typeof CHANGE_SOURCES)[number];

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
      source: e.source ?? null,
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
  await enqueueAlerts(tx, ids);
  return ids;
}

/**
 * Alert e-mails of these events (src/alerts/): one item per (event, rule, address) of every rule
 * the event matches (its events, and its shipment's tags and custom field values when the rule
 * filters on them), in the event's transaction like the webhook notifications. An immediate
 * rule's item gets its message (the outbox row the worker sends) at once; a daily rule's waits
 * for its digest. The unique (event, rule, address) key makes a second enqueue of one event a no-op.
 */
async function enqueueAlerts(tx: Kysely<DB>, ids: string[]): Promise<void> {
  await sql`
    with matched as materialized (
      select gen_random_uuid() as id, d.account_id, r.id as rule_id, d.id as event_id, a.address, r.schedule
        from domain_events d
        join alert_rules r on r.account_id = d.account_id and d.event = any (r.events)
       cross join lateral unnest(r.recipients) as a(address)
       where d.id = any (${ids}::uuid[])
         and (cardinality(r.filter_tags) = 0
              or exists (select 1 from shipments s
                          where s.id = d.shipment_id and s.tags && r.filter_tags))
         and not exists (
           select 1 from jsonb_each(r.filter_custom_fields) f(slug, want)
            where not exists (
              select 1 from custom_field_values v
                join custom_field_definitions def on def.id = v.definition_id
               where def.account_id = d.account_id and def.api_slug = f.slug
                 and v.entity_type = 'shipment' and v.entity_id = d.shipment_id
                 and (v.value = f.want
                      or (jsonb_typeof(v.value) = 'array' and v.value @> jsonb_build_array(f.want)))))),
    messages as (
      insert into alert_messages (id, account_id, rule_id, address, kind, next_attempt_at)
      select id, account_id, rule_id, address, 'immediate', now() from matched where schedule = 'immediate')
    insert into alert_items (id, account_id, rule_id, domain_event_id, address, message_id)
    select id, account_id, rule_id, event_id, address, case when schedule = 'immediate' then id end
      from matched
        on conflict (domain_event_id, rule_id, address) do nothing`.execute(tx);
}
