import { isConnectionError } from '../../db/connection-errors.ts';
import { LeaseLost, releaseLeases } from '../../worker/leases.ts';
import { claimBackoff, type Loop } from '../../worker/loop.ts';
import { createWaker } from '../../worker/waker.ts';
import { type Claimed, claimDueNotifications } from './claim.ts';
import { deliverNotification } from './deliver.ts';
import type { DeliveryDeps } from './deps.ts';
import { prepareClaimed, type Ready } from './prepare.ts';
import { SuccessSettler } from './settle.ts';

// Webhook delivery: lease due notifications (SKIP LOCKED, several workers share them), POST the
// stored body, log the attempt, schedule the retry or settle the notification, and keep the
// webhook's health for the deactivation rule. Bounded concurrency overall and per webhook, so a
// slow or dead endpoint only ever holds its own few slots.

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
  const backoff = claimBackoff(pollMs);

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
  const release = (ids: string[]) => releaseLeases(db, 'webhook_notifications', ids, owner);

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
          // The database is down or failing over: back off (see worker/loop.ts), then resume.
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
