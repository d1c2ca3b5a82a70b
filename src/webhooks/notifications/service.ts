import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { ApiError, badParameter, notFound } from '../../errors.ts';
import { parseDateParam } from '../../http/jsonapi.ts';
import { Included, type Resource } from '../../jsonapi/resource.ts';
import type { Page } from '../../util/page.ts';
import { isUuid } from '../../util/uuid.ts';
import { EVENT_NAMES, isKnownEvent } from '../catalogue.ts';
import {
  type Attempt,
  attemptsOf,
  findNotification,
  listNotifications,
  type Notification,
  redeliverNotification,
  redeliverNotifications,
  webhookState,
} from './queries.ts';
import { sampleBody } from './samples.ts';

// Webhook notifications as their owner sees them: listing with the attempt logs, redelivery (one, or
// a webhook's failed ones after an outage), and example bodies. Plain functions over (db, account,
// input); errors from http/errors.ts until the error catalogue gives them a neutral home. Creating
// notifications is not here: domain-events/record.ts writes them in the transaction of the change.

/** Most notifications one bulk redeliver call queues. */
export const REDELIVER_LIMIT = 10_000;

const NO_NOTIFICATION = 'No webhook notification with this id.';

const inactive = () =>
  new ApiError(409, [
    {
      detail: 'The webhook is inactive: set active to true first (PATCH /v2/webhooks/{id}), then redeliver.',
      code: 'webhook_inactive',
    },
  ]);

/** The list filter, in the query parameters' own names (errors name the parameter). */
export type NotificationQuery = {
  'filter[delivery_status]'?: string;
  'filter[event]'?: string;
  'filter[webhook_id]'?: string;
  'filter[created_at][start]'?: string;
  'filter[created_at][end]'?: string;
};

export interface NotificationsPage {
  rows: Notification[];
  total: number;
  /** Attempt logs by notification id, without answer excerpts. */
  attempts: Map<string, Attempt[]>;
}

/** Newest first. */
export async function listWebhookNotifications(
  db: Kysely<DB>,
  accountId: string,
  q: NotificationQuery,
  page: Page,
): Promise<NotificationsPage> {
  const event = q['filter[event]'];
  if (event !== undefined && !isKnownEvent(event)) {
    throw badParameter('filter[event]', `Unknown event "${event}". GET /v2/webhooks/events lists them.`);
  }
  const webhookId = q['filter[webhook_id]'];
  if (webhookId !== undefined && !isUuid(webhookId)) {
    throw badParameter('filter[webhook_id]', `filter[webhook_id] must be a webhook id, got "${webhookId}".`);
  }
  const { rows, total } = await listNotifications(
    db,
    accountId,
    {
      delivery_status: q['filter[delivery_status]'],
      event,
      webhook_id: webhookId,
      created_start: parseDateParam(q, 'filter[created_at][start]'),
      created_end: parseDateParam(q, 'filter[created_at][end]'),
    },
    page,
  );
  const attempts = await attemptsOf(
    db,
    rows.map((r) => r.id),
    false,
  );
  return { rows, total, attempts };
}

export interface NotificationWithAttempts {
  notification: Notification;
  attempts: Attempt[];
}

async function notificationOr404(db: Kysely<DB>, accountId: string, id: string): Promise<Notification> {
  const n = await findNotification(db, accountId, id);
  if (!n) throw notFound(NO_NOTIFICATION);
  return n;
}

/** The notification and its attempt log (`excerpts`: with the answers' excerpts). */
async function withAttempts(
  db: Kysely<DB>,
  n: Notification,
  excerpts: boolean,
): Promise<NotificationWithAttempts> {
  const attempts = await attemptsOf(db, [n.id], excerpts);
  return { notification: n, attempts: attempts.get(n.id) ?? [] };
}

/** One notification with its full attempt log, answer excerpts included. */
export async function getWebhookNotification(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<NotificationWithAttempts> {
  return withAttempts(db, await notificationOr404(db, accountId, id), true);
}

/**
 * Queues one notification again (same body, same data.id), whatever its delivery status; its
 * webhook must be active. Returns it as it is afterwards, with its attempt log.
 */
export async function redeliverWebhookNotification(
  db: Kysely<DB>,
  accountId: string,
  id: string,
): Promise<NotificationWithAttempts> {
  const n = await notificationOr404(db, accountId, id);
  const webhook = await webhookState(db, accountId, n.webhook_id);
  if (!webhook?.active) throw inactive();
  const after = await redeliverNotification(db, accountId, id);
  if (!after) throw notFound(NO_NOTIFICATION);
  return withAttempts(db, after, false);
}

export interface BulkRedeliverInput {
  webhook_id: string;
  /** Default failed. */
  delivery_status?: 'failed' | 'succeeded';
  created_at_start?: string;
  created_at_end?: string;
}

/** Queues again at most REDELIVER_LIMIT notifications of an active webhook, oldest first. */
export async function redeliverWebhookNotifications(
  db: Kysely<DB>,
  accountId: string,
  input: BulkRedeliverInput,
): Promise<{ redelivered: number; remaining: number }> {
  const webhook = await webhookState(db, accountId, input.webhook_id);
  if (!webhook) throw notFound('No webhook with this id.');
  if (!webhook.active) throw inactive();
  return redeliverNotifications(
    db,
    accountId,
    {
      webhook_id: webhook.id,
      delivery_status: input.delivery_status ?? 'failed',
      created_start: input.created_at_start ? new Date(input.created_at_start) : undefined,
      created_end: input.created_at_end ? new Date(input.created_at_end) : undefined,
    },
    REDELIVER_LIMIT,
  );
}

/**
 * Example bodies: for one event, the body exactly as a receiver gets it; without an event, one
 * example notification of every event in `data` and their related records in `included`.
 */
export function exampleNotifications(event: string | undefined): {
  data: unknown[];
  included?: Resource[];
  meta?: { total: number };
} {
  if (event !== undefined) {
    if (!isKnownEvent(event)) {
      throw badParameter('event', `Unknown event "${event}". GET /v2/webhooks/events lists them.`);
    }
    // The reference document's `data` is an array here (issue 13): the one notification in it,
    // with the included records a receiver would get.
    const body = JSON.parse(sampleBody(event, { notificationId: randomUUID(), webhookId: null })) as {
      data: unknown;
      included?: Resource[];
    };
    return { data: [body.data], included: body.included ?? [], meta: { total: 1 } };
  }
  const included = new Included();
  const data: unknown[] = [];
  for (const name of EVENT_NAMES) {
    const body = JSON.parse(sampleBody(name, { notificationId: randomUUID(), webhookId: null })) as {
      data: unknown;
      included?: Resource[];
    };
    data.push(body.data);
    for (const r of body.included ?? []) included.add(r);
  }
  return { data, included: included.items, meta: { total: data.length } };
}
