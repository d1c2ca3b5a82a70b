import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { createBackoff, isConnectionError } from '../db/connection-errors.ts';
import type { DB } from '../db/schema.ts';
import { LeaseLost, lockLease } from '../engine/claims.ts';
import { CLAIM_BACKOFF_MAX_MS, type Loop } from '../engine/worker.ts';
import { createWaker } from '../util/waker.ts';
import type { AddressPolicy } from './address-guard.ts';
import { attemptDelivery } from './http-attempt.ts';
import { type NotificationRow, renderRows } from './render.ts';
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
  /** Renders the bodies of first attempts, a claim at a time (renderRows by default). */
  render?: (db: Kysely<DB>, rows: NotificationRow[]) => Promise<Map<string, string>>;
  now?: () => Date;
  onAttempt?: (
    outcome: 'succeeded' | 'failed' | 'retry',
    event: string,
    firstAttemptLatencyMs: number | null,
  ) => void;
}

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
  const r = await sql<Claimed>`
    update webhook_notifications n
       set lease_owner = ${owner}, lease_expires_at = now() + make_interval(secs => ${leaseMs / 1000})
      from domain_events d
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
       and d.id = n.domain_event_id
    returning n.id, n.account_id, n.webhook_id, n.event, n.body, n.attempt_count, n.created_at,
              d.reference_type, d.reference_id, d.shipment_id, d.container_id, d.changeset,
              d.created_at as domain_event_created_at`.execute(db);
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

/** The given webhooks, from the cache or (those missing or stale) with one query. */
async function loadWebhooks(db: Kysely<DB>, ids: string[]): Promise<Map<string, WebhookRow | undefined>> {
  const out = new Map<string, WebhookRow | undefined>();
  const stale: string[] = [];
  for (const id of new Set(ids)) {
    const hit = cached(id);
    if (hit === null) stale.push(id);
    else out.set(id, hit);
  }
  if (stale.length === 0) return out;
  const rows = await db
    .selectFrom('webhooks')
    .select(WEBHOOK_COLUMNS)
    .where(sql<boolean>`id = any(${stale}::uuid[])`)
    .execute();
  const byId = new Map(rows.map((r) => [r.id, r as WebhookRow]));
  for (const id of stale) {
    remember(id, byId.get(id));
    out.set(id, byId.get(id));
  }
  return out;
}

async function loadWebhook(db: Kysely<DB>, id: string): Promise<WebhookRow | undefined> {
  return (await loadWebhooks(db, [id])).get(id);
}

/** A claimed notification ready to go: its webhook loaded, its body stored (null only when the
 * webhook was inactive at claim time). */
export interface Ready extends Claimed {
  webhook: WebhookRow | undefined;
}

/**
 * Prepares a claim for sending: loads the webhooks (one query for those not cached), renders the
 * bodies of first attempts all at once, and stores them with one statement before anything is
 * sent, so every attempt (retries and redeliveries included) sends exactly the stored body.
 * Notifications of inactive webhooks are not rendered (they are settled as failed). Returns the
 * notifications that can go; the others are left out: deleted meanwhile (with their webhook), or
 * not renderable now (reported, and due again when their lease expires).
 */
export async function prepareClaimed(deps: DeliveryDeps, claimed: Claimed[]): Promise<Ready[]> {
  const { db } = deps;
  const webhooks = await loadWebhooks(
    db,
    claimed.map((n) => n.webhook_id),
  );
  const toRender = claimed.filter((n) => n.body === null && webhooks.get(n.webhook_id)?.active);
  const bodies = toRender.length > 0 ? await renderAll(deps, toRender) : new Map<string, string>();
  const stored = bodies.size > 0 ? await storeBodies(db, bodies) : bodies;
  const out: Ready[] = [];
  for (const n of claimed) {
    const body = n.body ?? stored.get(n.id) ?? null;
    const webhook = webhooks.get(n.webhook_id);
    if (body !== null || !webhook?.active) out.push({ ...n, body, webhook });
  }
  return out;
}

async function renderAll(deps: DeliveryDeps, rows: Claimed[]): Promise<Map<string, string>> {
  const render = deps.render ?? renderRows;
  try {
    return await render(deps.db, rows);
  } catch (err) {
    // One bad record must not hold back the batch: render one by one to find it.
    deps.log.warn({ err }, 'rendering a batch of notifications failed; rendering one by one');
    const bodies = new Map<string, string>();
    for (const n of rows) {
      try {
        for (const [k, v] of await render(deps.db, [n])) bodies.set(k, v);
      } catch (e) {
        deps.log.error({ err: e, notification: n.id }, 'rendering failed; retried when its lease expires');
      }
    }
    return bodies;
  }
}

/** Stores rendered bodies where none is stored yet; returns what is stored, id -> body. */
async function storeBodies(db: Kysely<DB>, bodies: Map<string, string>): Promise<Map<string, string>> {
  const ids = [...bodies.keys()];
  // Each body is a parameter of its own: sent as is, where an array literal would be escaped.
  const r = await sql<{ id: string }>`
    update webhook_notifications n set body = i.body
      from unnest(${ids}::uuid[], array[${sql.join(ids.map((id) => bodies.get(id)!))}]::text[]) as i(id, body)
     where n.id = i.id and n.body is null
    returning n.id`.execute(db);
  const stored = new Map<string, string>();
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
  return stored;
}

export interface Success {
  id: string;
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
 * (prepareClaimed does that for a whole claim at once). Successes are settled through `settler`
 * when given (batched), else with a statement of their own.
 */
export async function deliverNotification(
  deps: DeliveryDeps,
  n: Claimed | Ready,
  settler?: SuccessSettler,
): Promise<void> {
  const { db, config } = deps;
  let webhook = 'webhook' in n ? n.webhook : await loadWebhook(db, n.webhook_id);
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
    const [ready] = await prepareClaimed(deps, [n]);
    if (!ready?.body) return; // deleted meanwhile, or not renderable now (reported)
    body = ready.body;
  }

  // Encoded once: both signatures and the request use the same bytes.
  const bytes = Buffer.from(body, 'utf8');
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
      body: bytes,
    }),
  };
  const outcome = await attemptDelivery({
    url: webhook.url,
    body: bytes,
    headers,
    ...(await deps.policy.route(webhook.url)), // internal receivers: no response excerpt
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
 * The delivery loop of a worker process. Claims run ahead of sending: one statement leases up to
 * a claim's worth of due notifications, prepareClaimed renders and stores the first attempts'
 * bodies with a handful of statements, and the notifications wait in a queue for a free slot
 * while the requests before them are in flight. So the database round trips of the next claim
 * overlap the current requests instead of alternating with them. Limits: at most `concurrency`
 * requests in flight, at most `perEndpointConcurrency` per webhook; a webhook has at most that
 * many more claimed and waiting, and a webhook at its limit never holds up another's items.
 * Successes are settled in batches (SuccessSettler).
 */
export function startDeliveryLoop(deps: DeliveryDeps): Loop {
  const { db, owner } = deps;
  const w = deps.config.webhooks;
  const concurrency = w.concurrency;
  const cap = w.perEndpointConcurrency;
  const leaseMs = deps.config.worker.leaseMs;
  const pollMs = deps.config.worker.pollIntervalMs;
  const settler = new SuccessSettler(db, owner);
  const sending = new Map<string, number>(); // per webhook: requests in flight
  const held = new Map<string, number>(); // per webhook: claimed and not finished (waiting or sending)
  const waiting: Array<{ n: Ready; at: number }> = [];
  const running = new Set<Promise<void>>();
  // Claim when at least this many can be taken: one notification per claim would cost a claim each.
  const refill = Math.max(1, Math.floor(concurrency / 4));
  let stopped = false;
  let waitingForRoom = false;
  const { sleep, wake } = createWaker();
  const backoff = createBackoff(Math.max(pollMs, 50), CLAIM_BACKOFF_MAX_MS);

  const add = (m: Map<string, number>, id: string, d: number) => {
    const v = (m.get(id) ?? 0) + d;
    if (v <= 0) m.delete(id);
    else m.set(id, v);
  };
  const sendable = (n: Ready) => (sending.get(n.webhook_id) ?? 0) < cap;
  // Free slots, plus a claim's worth waiting for the next free slots. Notifications waiting on a
  // webhook at its limit do not count, so such a webhook cannot starve the others.
  const room = () => concurrency * 2 - running.size - waiting.filter((q) => sendable(q.n)).length;
  const onError = (err: unknown, id: string | undefined) => {
    if (isConnectionError(err))
      deps.log.warn(
        { err: { message: (err as Error).message, code: (err as { code?: string }).code }, notification: id },
        'delivery interrupted: database unavailable; retried when its lease expires',
      );
    else deps.log.error({ err, notification: id }, 'delivery failed; retried when its lease expires');
  };
  const release = async (ids: string[]) => {
    if (ids.length === 0) return;
    await sql`
      update webhook_notifications set lease_owner = null, lease_expires_at = null
       where id = any(${ids}::uuid[]) and lease_owner = ${owner}`.execute(db);
  };

  function start(n: Ready) {
    add(sending, n.webhook_id, 1);
    const p: Promise<void> = deliverNotification(deps, n, settler)
      .catch((err) => {
        if (!(err instanceof LeaseLost)) onError(err, n.id);
      })
      .finally(() => {
        running.delete(p);
        add(sending, n.webhook_id, -1);
        add(held, n.webhook_id, -1);
        pump();
        if (waitingForRoom && room() >= refill) wake();
      });
    running.add(p);
  }

  /** Starts waiting notifications, oldest first, while slots are free. */
  function pump() {
    const stale: string[] = [];
    for (let i = 0; i < waiting.length && running.size < concurrency; ) {
      const q = waiting[i]!;
      if (!sendable(q.n)) {
        i++;
        continue;
      }
      waiting.splice(i, 1);
      if (Date.now() - q.at > leaseMs / 2) {
        // Waited long for its webhook (an endpoint that hangs): its lease could run out during the
        // request. Give it back to the queue instead.
        add(held, q.n.webhook_id, -1);
        stale.push(q.n.id);
        continue;
      }
      start(q.n);
    }
    release(stale).catch((err) => onError(err, undefined));
  }

  async function claimOnce(limit: number): Promise<number> {
    const saturated = [...held.entries()].filter(([, n]) => n >= 2 * cap).map(([id]) => id);
    const rows = await claimDueNotifications(db, owner, limit, leaseMs, cap, saturated);
    const taken: Claimed[] = [];
    const over: string[] = [];
    for (const r of rows) {
      if ((held.get(r.webhook_id) ?? 0) >= 2 * cap) over.push(r.id);
      else {
        add(held, r.webhook_id, 1);
        taken.push(r);
      }
    }
    let ready: Ready[] = [];
    try {
      await release(over);
      ready = await prepareClaimed(deps, taken);
    } finally {
      // Whatever fails here (the database going away) must not leave these counted as held, or
      // their webhooks would look saturated for good; their leases expire and they are claimed again.
      const kept = new Set(ready.map((r) => r.id));
      for (const r of taken) if (!kept.has(r.id)) add(held, r.webhook_id, -1);
    }
    const at = Date.now();
    for (const n of ready) waiting.push({ n, at });
    pump();
    return taken.length;
  }

  const main = (async () => {
    while (!stopped) {
      let taken = 0;
      const limit = room();
      if (limit >= refill) {
        try {
          taken = await claimOnce(limit);
          backoff.reset();
        } catch (err) {
          onError(err, undefined);
          // The database is down or failing over: back off (see engine/worker.ts), then resume.
          if (!stopped) await backoff.wait();
          continue;
        }
      }
      if (stopped) break;
      if (taken === 0) await sleep(pollMs);
      else if (room() < refill) {
        waitingForRoom = true;
        await sleep(pollMs);
        waitingForRoom = false;
      }
    }
    // Give back what has not been sent, so another worker (or the next start) takes it at once.
    const left = waiting.splice(0).map((q) => q.n.id);
    await release(left).catch((err) => onError(err, undefined));
    await Promise.allSettled([...running]);
  })();

  return {
    wake,
    inFlight: () => running.size + waiting.length,
    async stop() {
      stopped = true;
      wake();
      backoff.cancel();
      await main;
    },
  };
}
