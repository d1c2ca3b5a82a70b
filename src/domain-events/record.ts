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
 * The statement's tail that enqueues the alert e-mails of the events in `d` (src/alerts/): one
 * item per (event, rule, address) of every rule the event matches (its events, and its shipment's
 * tags and custom field values when the rule filters on them), in the event's transaction like the
 * webhook notifications. An immediate rule's item gets its message (the outbox row the worker
 * sends) at once; a daily rule's waits for its digest. The unique (event, rule, address) key makes
 * a second enqueue of one event a no-op.
 */
const alertItems = sql`
    matched as materialized (
      select gen_random_uuid() as id, d.account_id, r.id as rule_id, d.id as event_id, a.address, r.schedule
        from d
        join alert_rules r on r.account_id = d.account_id and d.event = any (r.events)
       cross join lateral unnest(r.recipients) as a(address)
       where (cardinality(r.filter_tags) = 0
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
        on conflict (domain_event_id, rule_id, address) do nothing`;

/**
 * Appends domain events. Call it inside the transaction that made the change, so the change and
 * its announcement commit together or not at all.
 *
 * One statement (one round trip) for the events and their fan-out: the events are inserted in a
 * data-modifying CTE, and its RETURNING rows feed the webhook notifications and the alert items
 * (the statement cannot read its own inserts from the table, only through RETURNING). The foreign
 * keys of the fan-out are checked at the end of the statement, when the events exist. Three
 * statements before (issue 30): each a round trip holding a pooled connection.
 */
export async function recordDomainEvents(tx: Kysely<DB>, events: NewDomainEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const ids = events.map(() => randomUUID());
  const col = <T>(f: (e: NewDomainEvent, i: number) => T): T[] => events.map(f);
  await sql`
    with d as (
      insert into domain_events (id, account_id, event, tracking_request_id, shipment_id, container_id,
                                 reference_type, reference_id, changeset, source)
      select u.id, u.account_id, u.event, u.tracking_request_id, u.shipment_id, u.container_id,
             u.reference_type, u.reference_id, u.changeset, u.source
        from unnest(${ids}::uuid[], ${col((e) => e.account_id)}::uuid[], ${col((e) => e.event)}::text[],
                    ${col((e) => e.tracking_request_id ?? null)}::uuid[], ${col((e) => e.shipment_id ?? null)}::uuid[],
                    ${col((e) => e.container_id ?? null)}::uuid[], ${col((e) => e.reference_type)}::text[],
                    ${col((e, i) => e.reference_id ?? ids[i]!)}::uuid[],
                    ${col((e) => (e.changeset ? JSON.stringify(e.changeset) : null))}::jsonb[],
                    ${col((e) => e.source ?? null)}::text[])
             with ordinality as u(id, account_id, event, tracking_request_id, shipment_id, container_id,
                                  reference_type, reference_id, changeset, source, ord)
       order by u.ord
      returning seq, id, account_id, event, shipment_id),
    -- One notification per event per subscribed, active webhook, in this same transaction: a crash
    -- can lose neither the change nor its notifications.
    notified as (
      insert into webhook_notifications (id, account_id, webhook_id, domain_event_id, event, next_attempt_at)
      select gen_random_uuid(), d.account_id, w.id, d.id, d.event, now()
        from d
        join webhooks w on w.account_id = d.account_id and w.active and d.event = any (w.events)
       order by d.seq, w.created_at),
    ${alertItems}`.execute(tx);
  return ids;
}
