import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { LeaseLost, lockLease } from '../engine/claims.ts';
import { type Loop, startLoop } from '../engine/worker.ts';
import type { AddressPolicy } from './address-guard.ts';
import { attemptDelivery } from './http-attempt.ts';
import { nextAttemptDelayMs, shouldDeactivate } from './schedule.ts';
import { signatureHeaders } from './sign.ts';

// Webhook delivery: lease due notifications (SKIP LOCKED, several workers share them), POST the
// stored body, log the attempt, schedule the retry or settle the notification, and keep the
// webhook's health for the deactivation rule. Bounded concurrency overall and per webhook, so a
// slow or dead endpoint only ever holds its own few slots.

export interface DeliveryDeps {
  db: Kysely<DB>;
  config: Config;
  log: Logger;
  owner: string;
  policy: AddressPolicy;
  /** Renders the body of a notification on its first attempt. */
  render(db: Kysely<DB>, notificationId: string): Promise<string>;
  now?: () => Date;
  onAttempt?: (
    outcome: 'succeeded' | 'failed' | 'retry',
    event: string,
    firstAttemptLatencyMs: number | null,
  ) => void;
}

interface Claimed {
  id: string;
  webhook_id: string;
  event: string;
  body: string | null;
  attempt_count: number;
  created_at: Date;
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
  const r = await sql<Claimed>`
    update webhook_notifications n
       set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
     where n.id in (
       select id from webhook_notifications
        where id in (
          select id from (
            select id, row_number() over (partition by webhook_id order by next_attempt_at, id) as rn
              from (select id, webhook_id, next_attempt_at from webhook_notifications
                     where delivery_status = 'pending' and next_attempt_at <= now()
                       and (lease_expires_at is null or lease_expires_at < now())
                       and not (webhook_id = any (${saturated}::uuid[]))
                     order by next_attempt_at
                     limit ${Math.max(limit * 8, 200)}) due
          ) ranked where rn <= ${perWebhook})
          and delivery_status = 'pending'
          and (lease_expires_at is null or lease_expires_at < now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked)
    returning n.id, n.webhook_id, n.event, n.body, n.attempt_count, n.created_at`.execute(db);
  return r.rows;
}

interface WebhookRow {
  id: string;
  url: string;
  headers: Array<{ name: string; value: string }>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  active: boolean;
  failing_since: Date | null;
}

// Webhook settings change rarely and are read for every delivery: keep them for a second.
const WEBHOOK_CACHE_MS = 1000;
const webhookCache = new Map<string, { at: number; row: WebhookRow | undefined }>();

async function loadWebhook(db: Kysely<DB>, id: string): Promise<WebhookRow | undefined> {
  const hit = webhookCache.get(id);
  if (hit && Date.now() - hit.at < WEBHOOK_CACHE_MS) return hit.row;
  const row = await db
    .selectFrom('webhooks')
    .select([
      'id',
      'url',
      'headers',
      'secret',
      'previous_secret',
      'previous_secret_expires_at',
      'active',
      'failing_since',
    ])
    .where('id', '=', id)
    .executeTakeFirst();
  if (webhookCache.size > 10_000) webhookCache.clear();
  webhookCache.set(id, { at: Date.now(), row });
  return row;
}

export async function deliverNotification(deps: DeliveryDeps, n: Claimed): Promise<void> {
  const { db, config } = deps;
  let webhook = await loadWebhook(db, n.webhook_id);
  if (!webhook?.active) {
    // Never settle on a stale cache entry: the webhook may have been reactivated a moment ago.
    webhookCache.delete(n.webhook_id);
    webhook = await loadWebhook(db, n.webhook_id);
  }
  if (!webhook?.active) {
    // Deactivated while this was queued: settle it as failed; it can be redelivered after reactivation.
    await db.transaction().execute(async (tx) => {
      await lockLease(tx, 'webhook_notifications', n.id, deps.owner);
      await tx
        .insertInto('webhook_attempts')
        .values({
          notification_id: n.id,
          status_code: null,
          error: 'webhook_inactive',
          duration_ms: 0,
          response_excerpt: null,
        })
        .execute();
      await tx
        .updateTable('webhook_notifications')
        .set({
          delivery_status: 'failed',
          next_attempt_at: null,
          lease_owner: null,
          lease_expires_at: null,
          updated_at: sql<Date>`now()`,
        })
        .where('id', '=', n.id)
        .execute();
    });
    return;
  }

  let body = n.body;
  if (body === null) {
    body = await deps.render(db, n.id);
    const stored = await db
      .updateTable('webhook_notifications')
      .set({ body })
      .where('id', '=', n.id)
      .where('body', 'is', null)
      .returning('body')
      .executeTakeFirst();
    // Another worker may have rendered it first; deliver exactly what is stored.
    if (!stored) {
      body = (
        await db
          .selectFrom('webhook_notifications')
          .select('body')
          .where('id', '=', n.id)
          .executeTakeFirstOrThrow()
      ).body!;
    }
  }

  const now = deps.now?.() ?? new Date();
  const secrets = [webhook.secret];
  if (
    webhook.previous_secret &&
    webhook.previous_secret_expires_at &&
    webhook.previous_secret_expires_at > now
  ) {
    secrets.push(webhook.previous_secret);
  }
  const custom: Record<string, string> = {};
  for (const h of webhook.headers ?? []) custom[h.name] = h.value;
  const headers = {
    ...custom,
    ...signatureHeaders({
      secrets,
      legacyHeaderName: config.webhooks.signatureHeader,
      msgId: n.id,
      timestamp: Math.floor(now.getTime() / 1000),
      body,
    }),
  };
  const outcome = await attemptDelivery({
    url: webhook.url,
    body,
    headers,
    dispatcher: deps.policy.dispatcher,
    totalTimeoutMs: config.webhooks.totalTimeoutMs,
  });

  const attempts = n.attempt_count + 1;
  const done = deps.now?.() ?? new Date();
  let status: 'succeeded' | 'failed' | 'retry' = 'succeeded';
  let nextAt: Date | null = null;
  if (!outcome.ok) {
    const delay = nextAttemptDelayMs(attempts, {
      scheduleMs: config.webhooks.retryScheduleMs,
      jitter: 0.1,
      retryAfterMs: outcome.retryAfterMs,
    });
    if (delay === null) status = 'failed';
    else {
      status = 'retry';
      nextAt = new Date(done.getTime() + delay);
    }
  }

  if (status === 'succeeded') {
    // The common case in one round trip: settle (only while the lease is ours), log the attempt,
    // and clear the webhook's failure streak when there is one.
    const r = await sql<{ n: number }>`
      with settled as (
        update webhook_notifications
           set delivery_status = 'succeeded', attempt_count = ${attempts}, last_attempt_at = ${done},
               next_attempt_at = null, delivered_at = ${done}, lease_owner = null, lease_expires_at = null,
               updated_at = now()
         where id = ${n.id} and lease_owner = ${deps.owner}
        returning id),
      logged as (
        insert into webhook_attempts (notification_id, status_code, error, duration_ms, response_excerpt)
        select id, ${outcome.statusCode}, null, ${Math.round(outcome.durationMs)}, ${outcome.responseExcerpt} from settled),
      healthy as (
        update webhooks set last_success_at = ${done}, failing_since = null
         where id = ${webhook.id} and exists (select 1 from settled)
           and (failing_since is not null or last_success_at is null or last_success_at < ${new Date(done.getTime() - 1000)}))
      select count(*)::int as n from settled`.execute(db);
    if (r.rows[0]!.n === 0) throw new LeaseLost(`lease on notification ${n.id} lost`);
    if (webhook.failing_since) webhookCache.delete(webhook.id);
    deps.onAttempt?.(status, n.event, attempts === 1 ? done.getTime() - n.created_at.getTime() : null);
    return;
  }

  await db.transaction().execute(async (tx) => {
    await lockLease(tx, 'webhook_notifications', n.id, deps.owner);
    await tx
      .insertInto('webhook_attempts')
      .values({
        notification_id: n.id,
        status_code: outcome.statusCode,
        error: outcome.error,
        duration_ms: Math.round(outcome.durationMs),
        response_excerpt: outcome.responseExcerpt,
      })
      .execute();
    await tx
      .updateTable('webhook_notifications')
      .set({
        delivery_status: status === 'retry' ? 'pending' : status,
        attempt_count: attempts,
        last_attempt_at: done,
        next_attempt_at: nextAt,
        delivered_at: null,
        lease_owner: null,
        lease_expires_at: null,
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', n.id)
      .execute();
    if (outcome.ok) {
      await tx
        .updateTable('webhooks')
        .set({ last_success_at: done, failing_since: null })
        .where('id', '=', webhook.id)
        .execute();
      return;
    }
    const h = await tx
      .updateTable('webhooks')
      .set({ last_failure_at: done, failing_since: sql<Date>`coalesce(failing_since, ${done})` })
      .where('id', '=', webhook.id)
      .returning(['failing_since', 'last_success_at'])
      .executeTakeFirstOrThrow();
    const deactivate = shouldDeactivate(
      {
        firstFailureAt: h.failing_since,
        lastSuccessAt: h.last_success_at,
        lastFailureAt: done,
        now: done,
        status410: outcome.gone,
      },
      { failingForMs: config.webhooks.deactivateAfterMs, minSpanMs: config.webhooks.deactivateMinSpanMs },
    );
    if (deactivate) {
      await tx
        .updateTable('webhooks')
        .set({
          active: false,
          deactivated_at: done,
          deactivation_reason: outcome.gone ? 'gone_410' : 'repeated_failures',
          updated_at: sql<Date>`now()`,
        })
        .where('id', '=', webhook.id)
        .where('active', '=', true)
        .execute();
      deps.log.warn(
        { webhook: webhook.id, reason: outcome.gone ? '410' : 'failures' },
        'webhook deactivated',
      );
    }
  });
  webhookCache.delete(webhook.id);
  deps.onAttempt?.(status, n.event, attempts === 1 ? done.getTime() - n.created_at.getTime() : null);
}

/** The delivery loop of a worker process. */
export function startDeliveryLoop(deps: DeliveryDeps): Loop {
  const w = deps.config.webhooks;
  const perWebhook = new Map<string, number>();
  return startLoop<Claimed>({
    name: 'webhook_deliveries',
    concurrency: w.concurrency,
    pollIntervalMs: deps.config.worker.pollIntervalMs,
    async claim(limit) {
      const saturated = [...perWebhook.entries()]
        .filter(([, n]) => n >= w.perEndpointConcurrency)
        .map(([id]) => id);
      const rows = await claimDueNotifications(
        deps.db,
        deps.owner,
        limit,
        deps.config.worker.leaseMs,
        w.perEndpointConcurrency,
        saturated,
      );
      // The window caps what one claim takes per webhook; this caps what is in flight per webhook.
      const taken: Claimed[] = [];
      for (const r of rows) {
        const inFlight = perWebhook.get(r.webhook_id) ?? 0;
        if (inFlight >= w.perEndpointConcurrency) {
          await deps.db
            .updateTable('webhook_notifications')
            .set({ lease_owner: null, lease_expires_at: null })
            .where('id', '=', r.id)
            .where('lease_owner', '=', deps.owner)
            .execute();
          continue;
        }
        perWebhook.set(r.webhook_id, inFlight + 1);
        taken.push(r);
      }
      return taken;
    },
    async run(n) {
      try {
        await deliverNotification(deps, n);
      } finally {
        const left = (perWebhook.get(n.webhook_id) ?? 1) - 1;
        if (left <= 0) perWebhook.delete(n.webhook_id);
        else perWebhook.set(n.webhook_id, left);
      }
    },
    onError: (err, item) =>
      deps.log.error({ err, notification: item?.id }, 'delivery failed; retried when its lease expires'),
  });
}
