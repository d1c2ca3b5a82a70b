import { type Insertable, type Kysely, sql, type Transaction, type Updateable } from 'kysely';
import type { DB } from '../../db/schema.ts';
import { lockLease } from '../../worker/leases.ts';
import type { Claimed } from './claim.ts';
import type { DeliveryDeps } from './deps.ts';
import type { AttemptOutcome } from './http-attempt.ts';
import { shouldDeactivate } from './schedule.ts';

// Settling an attempt: log it, move the notification on (succeeded, due again, or failed), and keep
// the webhook's health for the deactivation rule, always only while the lease is still ours.

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

/** Logs an unsuccessful attempt and moves its notification on, releasing the lease the caller holds. */
async function logAndRelease(
  tx: Transaction<DB>,
  id: string,
  attempt: Omit<Insertable<DB['webhook_attempts']>, 'notification_id'>,
  next: Updateable<DB['webhook_notifications']>,
): Promise<void> {
  await tx
    .insertInto('webhook_attempts')
    .values({ notification_id: id, ...attempt })
    .execute();
  await tx
    .updateTable('webhook_notifications')
    .set({ ...next, lease_owner: null, lease_expires_at: null, updated_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

export async function settleInactive(deps: DeliveryDeps, n: Claimed): Promise<void> {
  // Deactivated while this was queued: settle it as failed; it can be redelivered after reactivation.
  await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, 'webhook_notifications', n.id, deps.owner);
    await logAndRelease(
      tx,
      n.id,
      { status_code: null, error: 'webhook_inactive', duration_ms: 0, response_excerpt: null },
      { delivery_status: 'failed', next_attempt_at: null },
    );
  });
}

/**
 * Settles a failed attempt in one transaction: logs it, schedules the retry (`nextAt`) or fails the
 * notification (null: the schedule is used up), extends the webhook's failure streak and
 * deactivates the webhook when the rule says so.
 */
export async function settleFailed(
  deps: DeliveryDeps,
  n: Claimed,
  webhookId: string,
  outcome: AttemptOutcome,
  attempts: number,
  done: Date,
  nextAt: Date | null,
): Promise<void> {
  const { config } = deps;
  if (outcome.detail) {
    deps.log.warn(
      { webhook: webhookId, notification: n.id, detail: outcome.detail },
      'webhook delivery refused',
    );
  }
  await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, 'webhook_notifications', n.id, deps.owner);
    await logAndRelease(
      tx,
      n.id,
      {
        status_code: outcome.statusCode,
        error: outcome.error,
        duration_ms: Math.round(outcome.durationMs),
        response_excerpt: outcome.responseExcerpt,
      },
      {
        delivery_status: nextAt === null ? 'failed' : 'pending',
        attempt_count: attempts,
        last_attempt_at: done,
        next_attempt_at: nextAt,
        delivered_at: null,
      },
    );
    const h = await tx
      .updateTable('webhooks')
      .set({ last_failure_at: done, failing_since: sql<Date>`coalesce(failing_since, ${done})` })
      .where('id', '=', webhookId)
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
        .where('id', '=', webhookId)
        .where('active', '=', true)
        .execute();
      deps.log.warn({ webhook: webhookId, reason: outcome.gone ? '410' : 'failures' }, 'webhook deactivated');
    }
  });
}
