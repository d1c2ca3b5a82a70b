import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { hot } from '../../db/statement-names.ts';
import { leaseTo, UNLEASED } from '../../worker/leases.ts';
import type { NotificationRow } from '../notifications/render.ts';

// The delivery queue: due notifications, leased with FOR UPDATE SKIP LOCKED (see worker/leases.ts)
// so several workers share them.

/** A leased notification, with what rendering its body needs (its domain event). */
export interface Claimed extends NotificationRow {
  webhook_id: string;
  body: string | null;
  attempt_count: number;
}

export async function claimDueNotifications(
  db: Kysely<DB>,
  owner: string,
  limit: number,
  leaseMs: number,
  perWebhook: number,
  saturated: string[],
): Promise<Claimed[]> {
  // Candidates are capped per webhook first (a window over the oldest due rows), then locked.
  // The domain event comes back with the lease, so rendering needs no query of its own for it.
  const r = await sql<Claimed>`${hot('claim_due_notifications')}
    update webhook_notifications n
       set ${leaseTo(owner, leaseMs)}
      from domain_events d
     where n.id in (
       select id from webhook_notifications
        where id in (
          select id from (
            select id, row_number() over (partition by webhook_id order by next_attempt_at, id) as rn
              from (select id, webhook_id, next_attempt_at from webhook_notifications
                     where delivery_status = 'pending' and next_attempt_at <= now()
                       and ${UNLEASED}
                       and not (webhook_id = any (${saturated}::uuid[]))
                     order by next_attempt_at
                     limit ${Math.max(limit * 8, 200)}) due
          ) ranked where rn <= ${perWebhook})
          and delivery_status = 'pending'
          and ${UNLEASED}
        order by next_attempt_at
        limit ${limit}
        for update skip locked)
       and d.id = n.domain_event_id
    returning n.id, n.account_id, n.webhook_id, n.event, n.body, n.attempt_count, n.created_at,
              d.reference_type, d.reference_id, d.shipment_id, d.container_id, d.changeset,
              d.created_at as domain_event_created_at`.execute(db);
  return r.rows;
}
