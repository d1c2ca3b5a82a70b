import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { LeaseLost, lockLease } from '../engine/claims.ts';
import { type Loop, startLoop } from '../engine/worker.ts';
import type { AddressPolicy } from './address-guard.ts';
import { attemptDelivery } from './http-attempt.ts';
import { renderNotifications } from './render.ts';
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
  /** Renders the bodies of notifications on their first attempt, a batch at a time
   * (renderNotifications by default): id -> body, ids that no longer exist left out. */
  render?: (db: Kysely<DB>, notificationIds: string[]) => Promise<Map<string, string>>;
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

const WEBHOOK_COLUMNS = [
  'id',
  'url',
  'headers',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'active',
  'failing_since',
] as const;

function cached(id: string): WebhookRow | undefined | null {
  const hit = webhookCache.get(id);
  return hit && Date.now() - hit.at < WEBHOOK_CACHE_MS ? hit.row : null;
}

function remember(id: string, row: WebhookRow | undefined): void {
  if (webhookCache.size > 10_000) webhookCache.clear();
  webhookCache.set(id, { at: Date.now(), row });
}

/** Refreshes the cache entries of the given webhooks that are missing or stale: one query. */
async function loadWebhooks(db: Kysely<DB>, ids: string[]): Promise<void> {
  const stale = [...new Set(ids)].filter((id) => cached(id) === null);
  if (stale.length === 0) return;
  const rows = await db
    .selectFrom('webhooks')
    .select(WEBHOOK_COLUMNS)
    .where(sql<boolean>`id = any(${stale}::uuid[])`)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as WebhookRow]));
  for (const id of stale) remember(id, byId.get(id));
}

async function loadWebhook(db: Kysely<DB>, id: string): Promise<WebhookRow | undefined> {
  const hit = cached(id);
  if (hit !== null) return hit;
  await loadWebhooks(db, [id]);
  return cached(id) ?? undefined;
}

/**
 * Renders the bodies of the claimed notifications that have none yet (first attempts), all at
 * once, and stores them with one statement before anything is sent: every attempt, retries and
 * redeliveries included, then sends exactly the stored body. Notifications of inactive webhooks
 * are not rendered (they are settled as failed). A notification whose body cannot be rendered is
 * reported and left leased: it becomes due again when its lease expires, as before.
 */
export async function prepareBodies(deps: DeliveryDeps, claimed: Claimed[]): Promise<Claimed[]> {
  const { db } = deps;
  await loadWebhooks(
    db,
    claimed.map((n) => n.webhook_id),
  );
  const toRender = claimed.filter((n) => n.body === null && cached(n.webhook_id)?.active).map((n) => n.id);
  if (toRender.length === 0) return claimed;
  const render = deps.render ?? renderNotifications;

  let bodies: Map<string, string>;
  try {
    bodies = await render(db, toRender);
  } catch (err) {
    // One bad record must not hold back the batch: render one by one to find it.
    deps.log.warn({ err }, 'rendering a batch of notifications failed; rendering one by one');
    bodies = new Map();
    for (const id of toRender) {
      try {
        for (const [k, v] of await render(db, [id])) bodies.set(k, v);
      } catch (e) {
        deps.log.error({ err: e, notification: id }, 'rendering failed; retried when its lease expires');
      }
    }
  }
  const ids = [...bodies.keys()];
  const stored = new Map<string, string>();
  if (ids.length > 0) {
    const r = await sql<{ id: string }>`
      update webhook_notifications n set body = i.body
        from unnest(${ids}::uuid[], ${ids.map((id) => bodies.get(id)!)}::text[]) as i(id, body)
       where n.id = i.id and n.body is null
      returning n.id`.execute(db);
    for (const row of r.rows) stored.set(row.id, bodies.get(row.id)!);
    // Another worker may have rendered some first (after a lease expiry): deliver what is stored.
    const others = ids.filter((id) => !stored.has(id));
    if (others.length > 0) {
      const rows = await db
        .selectFrom('webhook_notifications')
        .select(['id', 'body'])
        .where(sql<boolean>`id = any(${others}::uuid[])`)
        .execute();
      for (const row of rows) if (row.body !== null) stored.set(row.id, row.body);
    }
  }
  const rendered = new Set(toRender);
  const out: Claimed[] = [];
  for (const n of claimed) {
    if (!rendered.has(n.id)) out.push(n);
    else if (stored.has(n.id)) out.push({ ...n, body: stored.get(n.id)! });
    // else: deleted meanwhile (its webhook was deleted), or its rendering failed (reported).
  }
  return out;
}

interface Success {
  id: string;
  webhookId: string;
  attempts: number;
  done: Date;
  statusCode: number | null;
  durationMs: number;
  excerpt: string | null;
}

/**
 * Settles successful attempts in batches, one statement per batch: while one batch is being
 * written, the next one gathers (group commit). A delivery's promise resolves once its outcome is
 * stored: true, or false when its lease was lost meanwhile (nothing was written for it).
 */
export class SuccessSettler {
  readonly #queue: Array<{ s: Success; resolve: (ok: boolean) => void; reject: (err: unknown) => void }> = [];
  #busy = false;
  readonly #db: Kysely<DB>;
  readonly #owner: string;
  readonly #maxBatch: number;
  constructor(db: Kysely<DB>, owner: string, maxBatch = 256) {
    this.#db = db;
    this.#owner = owner;
    this.#maxBatch = maxBatch;
  }

  settle(s: Success): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ s, resolve, reject });
      if (!this.#busy) {
        this.#busy = true;
        // Let the other answers that arrived in this turn of the event loop join the batch.
        setImmediate(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      try {
        const settled = await settleSucceeded(
          this.#db,
          this.#owner,
          batch.map((b) => b.s),
        );
        for (const b of batch) b.resolve(settled.has(b.s.id));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.#busy = false;
  }
}

/**
 * One statement for a batch of acknowledged attempts: settle each notification (only while the
 * lease is ours), log its attempt, and clear its webhook's failure streak when there is one.
 * Returns the ids it settled.
 */
export async function settleSucceeded(db: Kysely<DB>, owner: string, batch: Success[]): Promise<Set<string>> {
  if (batch.length === 0) return new Set();
  const r = await sql<{ id: string }>`
    with input as (
      select * from unnest(${batch.map((s) => s.id)}::uuid[], ${batch.map((s) => s.attempts)}::int[],
                           ${batch.map((s) => s.done.toISOString())}::timestamptz[],
                           ${batch.map((s) => s.statusCode)}::int[], ${batch.map((s) => Math.round(s.durationMs))}::int[],
                           ${batch.map((s) => s.excerpt)}::text[])
               with ordinality as t(id, attempts, done, status_code, duration_ms, excerpt, ord)),
    settled as (
      update webhook_notifications n
         set delivery_status = 'succeeded', attempt_count = i.attempts, last_attempt_at = i.done,
             next_attempt_at = null, delivered_at = i.done, lease_owner = null, lease_expires_at = null,
             updated_at = now()
        from input i
       where n.id = i.id and n.lease_owner = ${owner}
      returning n.id, n.webhook_id, i.done, i.status_code, i.duration_ms, i.excerpt, i.ord),
    logged as (
      insert into webhook_attempts (notification_id, status_code, error, duration_ms, response_excerpt)
      select id, status_code, null, duration_ms, excerpt from settled order by ord),
    healthy as (
      update webhooks w set last_success_at = h.done, failing_since = null
        from (select webhook_id, max(done) as done from settled group by webhook_id) h
       where w.id = h.webhook_id
         and (w.failing_since is not null or w.last_success_at is null
              or w.last_success_at < h.done - interval '1 second'))
    select id from settled`.execute(db);
  return new Set(r.rows.map((x) => x.id));
}

async function settleInactive(deps: DeliveryDeps, n: Claimed): Promise<void> {
  // Deactivated while this was queued: settle it as failed; it can be redelivered after reactivation.
  await deps.db.transaction().execute(async (tx) => {
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
}

/**
 * One attempt of a claimed notification. Its body is rendered and stored first when it has none
 * (prepareBodies does that for a whole claim at once). Successes are settled through `settler`
 * when given (batched), else with a statement of their own.
 */
export async function deliverNotification(
  deps: DeliveryDeps,
  n: Claimed,
  settler?: SuccessSettler,
): Promise<void> {
  const { db, config } = deps;
  let webhook = await loadWebhook(db, n.webhook_id);
  if (!webhook?.active) {
    // Never settle on a stale cache entry: the webhook may have been reactivated a moment ago.
    webhookCache.delete(n.webhook_id);
    webhook = await loadWebhook(db, n.webhook_id);
  }
  if (!webhook?.active) {
    await settleInactive(deps, n);
    return;
  }

  let body = n.body;
  if (body === null) {
    const [ready] = await prepareBodies(deps, [n]);
    if (!ready?.body) return; // deleted meanwhile, or not renderable now (reported)
    body = ready.body;
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
    const success: Success = {
      id: n.id,
      webhookId: webhook.id,
      attempts,
      done,
      statusCode: outcome.statusCode,
      durationMs: outcome.durationMs,
      excerpt: outcome.responseExcerpt,
    };
    const settled = settler
      ? await settler.settle(success)
      : (await settleSucceeded(db, deps.owner, [success])).has(n.id);
    if (!settled) throw new LeaseLost(`lease on notification ${n.id} lost`);
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

/**
 * The delivery loop of a worker process. A claim leases up to the free capacity with one
 * statement, renders and stores the first-attempt bodies of the whole claim with a handful of
 * statements (prepareBodies), and starts every delivery at once; successes are settled in batches.
 */
export function startDeliveryLoop(deps: DeliveryDeps): Loop {
  const w = deps.config.webhooks;
  const perWebhook = new Map<string, number>();
  const settler = new SuccessSettler(deps.db, deps.owner);
  const release = (id: string) => {
    const left = (perWebhook.get(id) ?? 1) - 1;
    if (left <= 0) perWebhook.delete(id);
    else perWebhook.set(id, left);
  };
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
      const over: string[] = [];
      for (const r of rows) {
        const inFlight = perWebhook.get(r.webhook_id) ?? 0;
        if (inFlight >= w.perEndpointConcurrency) {
          over.push(r.id);
          continue;
        }
        perWebhook.set(r.webhook_id, inFlight + 1);
        taken.push(r);
      }
      if (over.length > 0) {
        await sql`
          update webhook_notifications set lease_owner = null, lease_expires_at = null
           where id = any(${over}::uuid[]) and lease_owner = ${deps.owner}`.execute(deps.db);
      }
      let ready: Claimed[];
      try {
        ready = await prepareBodies(deps, taken);
      } catch (err) {
        for (const r of taken) release(r.webhook_id);
        throw err;
      }
      if (ready.length < taken.length) {
        const kept = new Set(ready.map((r) => r.id));
        for (const r of taken) if (!kept.has(r.id)) release(r.webhook_id);
      }
      return ready;
    },
    async run(n) {
      try {
        await deliverNotification(deps, n, settler);
      } finally {
        release(n.webhook_id);
      }
    },
    onError: (err, item) =>
      deps.log.error({ err, notification: item?.id }, 'delivery failed; retried when its lease expires'),
  });
}
