import { LeaseLost } from '../../worker/leases.ts';
import type { Claimed } from './claim.ts';
import type { DeliveryDeps } from './deps.ts';
import { attemptDelivery } from './http-attempt.ts';
import { prepareClaimed, type Ready } from './prepare.ts';
import { nextAttemptDelayMs } from './schedule.ts';
import { type SuccessSettler, settleFailed, settleInactive, settleSucceeded } from './settle.ts';
import { signatureHeaders } from './sign.ts';
import { forgetWebhook, loadWebhook } from './webhook-cache.ts';

// One delivery attempt of a leased notification: POST the stored body, signed, through the outbound
// address guard, then settle the outcome (settle.ts) and schedule the retry (schedule.ts).

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
    forgetWebhook(n.webhook_id);
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
  const latencyMs = attempts === 1 ? done.getTime() - n.created_at.getTime() : null;

  if (outcome.ok) {
    const success = {
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
    if (webhook.failing_since) forgetWebhook(webhook.id);
    deps.onAttempt?.('succeeded', n.event, latencyMs);
    return;
  }

  const delay = nextAttemptDelayMs(attempts, {
    scheduleMs: config.webhooks.retryScheduleMs,
    jitter: 0.1,
    retryAfterMs: outcome.retryAfterMs,
  });
  // null: the schedule is used up and the notification fails.
  const nextAt = delay === null ? null : new Date(done.getTime() + delay);
  await settleFailed(deps, n, webhook.id, outcome, attempts, done, nextAt);
  forgetWebhook(webhook.id);
  deps.onAttempt?.(nextAt === null ? 'failed' : 'retry', n.event, latencyMs);
}
