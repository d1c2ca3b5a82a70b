import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { leaseTo, UNLEASED } from '../../worker/leases.ts';

// The alert outbox (migrations/0058): claiming due messages with the workers' lease machinery
// (worker/leases.ts), reading what a message is about, and gathering due digests.

export interface ClaimedMessage {
  id: string;
  account_id: string;
  rule_id: string;
  address: string;
  kind: 'immediate' | 'digest';
  attempt_count: number;
  /** The rule's time zone: the message shows times in it. */
  time_zone: string;
}

/** Leases up to `limit` due pending messages (FOR UPDATE SKIP LOCKED: workers share the queue). */
export async function claimDueMessages(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedMessage[]> {
  const r = await sql<ClaimedMessage>`
    update alert_messages m set ${leaseTo(owner, leaseMs)}
      from alert_rules r
     where r.id = m.rule_id
       and m.id in (select id from alert_messages
                   where status = 'pending' and next_attempt_at <= now() and ${UNLEASED}
                   order by next_attempt_at
                   limit ${limit}
                   for update skip locked)
    returning m.id, m.account_id, m.rule_id, m.address, m.kind, m.attempt_count, r.time_zone`.execute(db);
  return r.rows;
}

/** One event of a message, with the facts of its shipment and container as they are now. */
export interface EventFacts {
  event: string;
  occurred_at: Date;
  changeset: Record<string, [unknown, unknown]> | null;
  /** For an estimate's event: the estimate before and after. */
  estimate_before: Date | null;
  estimate_after: Date | null;
  shipment_id: string | null;
  bill_of_lading_number: string | null;
  scac: string | null;
  port_of_lading_locode: string | null;
  port_of_discharge_locode: string | null;
  pol_atd_at: Date | null;
  pod_eta_at: Date | null;
  pod_ata_at: Date | null;
  vessel_name: string | null;
  pod_voyage_number: string | null;
  shipment_tags: string[] | null;
  container_id: string | null;
  container_number: string | null;
  container_status: string | null;
  available_for_pickup: boolean | null;
  pickup_lfd: Date | null;
  pickup_appointment_at: Date | null;
}

/** The events of a message, oldest first, at most `limit`, and how many it has in all. */
export async function messageEvents(
  db: Kysely<DB>,
  messageId: string,
  limit: number,
): Promise<{ events: EventFacts[]; total: number }> {
  const r = await sql<EventFacts & { total: number }>`
    select d.event, d.created_at as occurred_at, d.changeset,
           e.previous_timestamp as estimate_before, e.estimated_timestamp as estimate_after, d.shipment_id,
           s.bill_of_lading_number, s.scac, s.port_of_lading_locode, s.port_of_discharge_locode,
           s.pol_atd_at, s.pod_eta_at, s.pod_ata_at, v.name as vessel_name, s.pod_voyage_number,
           s.tags as shipment_tags, d.container_id, c.number as container_number,
           c.current_status as container_status,
           case when c.availability_known then c.available_for_pickup end as available_for_pickup,
           coalesce(c.pickup_lfd_line, c.pickup_lfd_terminal, c.pickup_lfd_rail) as pickup_lfd,
           c.pickup_appointment_at, count(*) over ()::int as total
      from alert_items i
      join domain_events d on d.id = i.domain_event_id
      left join estimated_events e on d.reference_type = 'estimated_event' and e.id = d.reference_id
      left join shipments s on s.id = d.shipment_id
      left join vessels v on v.id = s.pod_vessel_id
      left join containers c on c.id = d.container_id
     where i.message_id = ${messageId}
     order by d.seq
     limit ${limit}`.execute(db);
  return { events: r.rows, total: r.rows[0]?.total ?? 0 };
}

/** Daily rules whose digest time has come by `now` (the worker's clock), locked for this transaction. */
export async function dueDigestRules(
  tx: Kysely<DB>,
  now: Date,
  limit: number,
): Promise<Array<{ id: string; daily_at: string; time_zone: string }>> {
  const r = await sql<{ id: string; daily_at: string; time_zone: string }>`
    select id, daily_at, time_zone from alert_rules
     where schedule = 'daily' and next_digest_at <= ${now}
     order by next_digest_at
     limit ${limit}
       for update skip locked`.execute(tx);
  return r.rows;
}

/**
 * Gathers a rule's waiting items into one digest message per address (due at once), and sets its
 * next digest time (null: a rule no longer daily). Answers how many messages it made.
 */
export async function gatherDigest(tx: Kysely<DB>, ruleId: string, next: Date | null): Promise<number> {
  const r = await sql<{ id: string }>`
    with made as (
      insert into alert_messages (id, account_id, rule_id, address, kind, next_attempt_at)
      select gen_random_uuid(), account_id, rule_id, address, 'digest', now()
        from alert_items where rule_id = ${ruleId} and message_id is null
       group by account_id, rule_id, address
      returning id, address),
    assigned as (
      update alert_items i set message_id = made.id
        from made
       where i.rule_id = ${ruleId} and i.message_id is null and i.address = made.address)
    select id from made`.execute(tx);
  await sql`update alert_rules set next_digest_at = ${next} where id = ${ruleId}`.execute(tx);
  return r.rows.length;
}

/** Settles a sent message (under its lease: a worker that lost it writes nothing). */
export async function markSent(tx: Kysely<DB>, id: string): Promise<void> {
  await sql`update alert_messages
               set status = 'sent', sent_at = now(), last_attempt_at = now(), attempt_count = attempt_count + 1,
                   last_error = null, lease_owner = null, lease_expires_at = null, updated_at = now()
             where id = ${id}`.execute(tx);
}

/** A failed attempt: due again after `delayMs`, or failed for good when the schedule is used up (null). */
export async function markFailed(
  tx: Kysely<DB>,
  id: string,
  error: string,
  delayMs: number | null,
): Promise<void> {
  await sql`update alert_messages
               set status = ${delayMs === null ? 'failed' : 'pending'},
                   next_attempt_at = case when ${delayMs === null} then null
                                          else now() + make_interval(secs => ${(delayMs ?? 0) / 1000}) end,
                   last_attempt_at = now(), attempt_count = attempt_count + 1, last_error = ${error.slice(0, 500)},
                   lease_owner = null, lease_expires_at = null, updated_at = now()
             where id = ${id}`.execute(tx);
}

/** A message with nothing to say (its events are gone): settled without sending. */
export async function markEmpty(tx: Kysely<DB>, id: string): Promise<void> {
  await sql`update alert_messages set status = 'cancelled', lease_owner = null, lease_expires_at = null,
                   updated_at = now() where id = ${id}`.execute(tx);
}
