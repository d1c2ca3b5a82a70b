import { type Kysely, sql } from 'kysely';
import { byId, byIds } from '../../db/by-ids.ts';
import { paged, total } from '../../db/paged.ts';
import type { DB } from '../../db/schema.ts';
import { accountTransportEvents, type TransportEventRow } from '../../shipments/containers/queries.ts';
import type { Page } from '../../util/page.ts';

// Webhook notifications, read side, and redelivery. Delivery itself (leasing, attempts, retries)
// belongs to the worker (src/webhooks/delivery/). Every query filters by account_id.

export interface Notification {
  id: string;
  webhook_id: string;
  event: string;
  delivery_status: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  /** From the domain event: the notification's reference_object. */
  reference_type: string;
  reference_id: string;
}

export interface Attempt {
  notification_id: string;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response_excerpt?: string | null;
}

const COLUMNS = [
  'n.id',
  'n.webhook_id',
  'n.event',
  'n.delivery_status',
  'n.attempt_count',
  'n.next_attempt_at',
  'n.last_attempt_at',
  'n.delivered_at',
  'n.created_at',
  'd.reference_type',
  'd.reference_id',
] as const;

function notifications(db: Kysely<DB>, accountId: string) {
  return db
    .selectFrom('webhook_notifications as n')
    .innerJoin('domain_events as d', 'd.id', 'n.domain_event_id')
    .where('n.account_id', '=', accountId);
}

export interface NotificationFilter {
  delivery_status?: string;
  event?: string;
  webhook_id?: string;
  created_start?: Date;
  created_end?: Date;
}

/** Newest first. */
export async function listNotifications(
  db: Kysely<DB>,
  accountId: string,
  f: NotificationFilter,
  page: Page,
): Promise<{ rows: Notification[]; total: number }> {
  let q = notifications(db, accountId);
  if (f.delivery_status) q = q.where('n.delivery_status', '=', f.delivery_status);
  if (f.event) q = q.where('n.event', '=', f.event);
  if (f.webhook_id) q = q.where('n.webhook_id', '=', f.webhook_id);
  if (f.created_start) q = q.where('n.created_at', '>=', f.created_start);
  if (f.created_end) q = q.where('n.created_at', '<=', f.created_end);
  return paged(
    q.select(COLUMNS).orderBy('n.created_at', 'desc').orderBy('n.id', 'desc'),
    q.select(total),
    page,
  );
}

export const findNotification = byId<Notification>(async (db, accountId, id) => {
  return notifications(db, accountId).select(COLUMNS).where('n.id', '=', id).executeTakeFirst();
});

/** The attempt logs of these notifications, oldest first; the response excerpt only when asked. */
export async function attemptsOf(
  db: Kysely<DB>,
  notificationIds: string[],
  withExcerpt: boolean,
): Promise<Map<string, Attempt[]>> {
  const out = new Map<string, Attempt[]>();
  if (notificationIds.length === 0) return out;
  const base = db
    .selectFrom('webhook_attempts')
    .select(['notification_id', 'attempted_at', 'status_code', 'error', 'duration_ms'])
    .where('notification_id', 'in', [...new Set(notificationIds)])
    .orderBy('notification_id')
    .orderBy('id');
  const rows: Attempt[] = withExcerpt
    ? await base.select('response_excerpt').execute()
    : await base.execute();
  for (const r of rows) {
    let list = out.get(r.notification_id);
    if (!list) {
      list = [];
      out.set(r.notification_id, list);
    }
    list.push(r);
  }
  return out;
}

/** Webhook of a notification, with the state redelivery needs. */
export async function webhookState(
  db: Kysely<DB>,
  accountId: string,
  webhookId: string,
): Promise<{ id: string; active: boolean } | undefined> {
  return db
    .selectFrom('webhooks')
    .select(['id', 'active'])
    .where('account_id', '=', accountId)
    .where('id', '=', webhookId)
    .executeTakeFirst();
}

// What a reset looks like: due now, a fresh round of attempts, no lease. The stored body stays, so
// the receiver gets the same notification (same data.id) again. The attempt log is kept.
const RESET = {
  delivery_status: 'pending',
  next_attempt_at: sql<Date>`now()`,
  attempt_count: 0,
  lease_owner: null,
  lease_expires_at: null,
  updated_at: sql<Date>`now()`,
} as const;

/**
 * Queues one notification for delivery again. A pending one that a worker is delivering right now
 * (an unexpired lease) is left alone: it is already on its way. Returns the notification as it is
 * afterwards, or undefined when the account has no such notification.
 */
export async function redeliverNotification(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<Notification | undefined> {
  await db
    .updateTable('webhook_notifications')
    .set(RESET)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where(sql<boolean>`not (delivery_status = 'pending' and coalesce(lease_expires_at > now(), false))`)
    .execute();
  return findNotification(db, accountId, id);
}

export interface RedeliverFilter {
  webhook_id: string;
  delivery_status: 'failed' | 'succeeded';
  created_start?: Date;
  created_end?: Date;
}

/** Queues at most `limit` matching notifications again (oldest first); returns how many, and how many match still. */
export async function redeliverNotifications(
  db: Kysely<DB>,
  accountId: string,
  f: RedeliverFilter,
  limit: number,
): Promise<{ redelivered: number; remaining: number }> {
  const matching = () => {
    let q = db
      .selectFrom('webhook_notifications')
      .where('account_id', '=', accountId)
      .where('webhook_id', '=', f.webhook_id)
      .where('delivery_status', '=', f.delivery_status);
    if (f.created_start) q = q.where('created_at', '>=', f.created_start);
    if (f.created_end) q = q.where('created_at', '<=', f.created_end);
    return q;
  };
  const r = await db
    .updateTable('webhook_notifications')
    .set(RESET)
    .where('account_id', '=', accountId)
    .where('id', 'in', matching().select('id').orderBy('created_at').orderBy('id').limit(limit))
    .executeTakeFirst();
  const redelivered = Number(r.numUpdatedRows);
  let remaining = 0;
  if (redelivered >= limit) {
    const c = await matching()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    remaining = Number(c.n);
  }
  return { redelivered, remaining };
}

// ---- reference objects, for include=reference_object ---------------------------------------------

export const transportEventsByIds = byIds<TransportEventRow>(async (db, accountId, ids) => {
  return accountTransportEvents(db, accountId).where('id', 'in', ids).execute();
});
