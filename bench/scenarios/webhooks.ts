import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { recordDomainEvents } from '../../src/domain-events/record.ts';
import { generateSecret } from '../../src/webhooks/delivery/sign.ts';
import { type Ctx, startWorkerProcess } from '../lib/context.ts';
import { perRequest, sampleCpu } from '../lib/cpu.ts';
import { freePort, type Proc, peakRssMb, sleep, startNode } from '../lib/proc.ts';
import { failed } from '../lib/report.ts';
import type { SmallSet } from './reads.ts';

// Signed webhook deliveries with one worker process to a receiver process answering 204. Domain
// events are recorded with recordDomainEvents (one notification each for the account's webhook),
// as the engine records them. Capacity: a backlog drained over the window. Latency: events
// recorded at a steady rate, p99 of (first attempt - notification created_at).

const EVENT = 'container.transport.vessel_arrived';

async function record(ctx: Ctx, small: SmallSet, count: number, offset: number): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => ({
    event: EVENT,
    account_id: small.accountId,
    shipment_id: small.shipmentId,
    container_id: small.containerId,
    reference_type: 'transport_event',
    reference_id: small.transportEventIds[(offset + i) % small.transportEventIds.length]!,
  }));
  await ctx.db.transaction().execute((tx) => recordDomainEvents(tx, events));
}

const dbNow = async (ctx: Ctx) =>
  (await sql<{ t: Date }>`select clock_timestamp() as t`.execute(ctx.db)).rows[0]!.t;

async function pending(ctx: Ctx, webhookId: string): Promise<number> {
  const r = await ctx.db
    .selectFrom('webhook_notifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('webhook_id', '=', webhookId)
    .where('attempt_count', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Waits until every notification had its first attempt; false after the time-out. */
async function drain(ctx: Ctx, webhookId: string, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while ((await pending(ctx, webhookId)) > 0) {
    if (Date.now() > until) return false;
    await sleep(200);
  }
  return true;
}

/** Drops what is still queued and not leased, then lets the leased ones finish. */
async function discardBacklog(ctx: Ctx, webhookId: string): Promise<number> {
  const r = await ctx.db
    .deleteFrom('webhook_notifications')
    .where('webhook_id', '=', webhookId)
    .where('attempt_count', '=', 0)
    .where('lease_owner', 'is', null)
    .executeTakeFirst();
  await drain(ctx, webhookId, 30_000);
  return Number(r.numDeletedRows);
}

async function attemptsBetween(ctx: Ctx, webhookId: string, from: Date, to: Date): Promise<number> {
  const r = await sql<{ n: number }>`
    select count(*)::int as n from webhook_attempts a join webhook_notifications n on n.id = a.notification_id
     where n.webhook_id = ${webhookId} and a.attempted_at >= ${from} and a.attempted_at < ${to}`.execute(
    ctx.db,
  );
  return r.rows[0]!.n;
}

/** Records `rate` events per second for `seconds`, in a batch every 100 ms. */
async function inject(ctx: Ctx, small: SmallSet, rate: number, seconds: number): Promise<number> {
  const start = performance.now();
  let sent = 0;
  for (let tick = 1; tick <= seconds * 10; tick++) {
    const due = Math.round(rate * (tick / 10)) - sent;
    if (due > 0) await record(ctx, small, due, sent);
    sent += Math.max(0, due);
    const wait = start + tick * 100 - performance.now();
    if (wait > 0) await sleep(wait);
  }
  return sent / ((performance.now() - start) / 1000);
}

export async function webhookScenario(ctx: Ctx, small: SmallSet): Promise<void> {
  const secret = generateSecret();
  const port = await freePort();
  const receiver = startNode('receiver', [
    'bench/servers/receiver.ts',
    '--port',
    String(port),
    '--secret',
    secret,
  ]);
  const webhookId = randomUUID();
  const rate = ctx.cfg.webhookRate;
  const perEndpoint = ctx.cfg.webhookConcurrency;
  let worker: Proc | undefined;
  try {
    worker = await startWorkerProcess('webhook-worker', {
      DATABASE_URL: ctx.bench.url,
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOWLIST: '127.0.0.0/8',
      WORKER_POLL_INTERVAL_MS: '100',
      WEBHOOK_CONCURRENCY: String(Math.max(64, perEndpoint)),
      WEBHOOK_PER_ENDPOINT_CONCURRENCY: String(perEndpoint),
      DB_POOL_SIZE: String(ctx.cfg.workerPoolSize),
    });
    await receiver.waitFor(/listening on/);
    await ctx.db
      .insertInto('webhooks')
      .values({
        id: webhookId,
        account_id: small.accountId,
        url: `http://127.0.0.1:${port}/hooks/tracking`,
        events: [EVENT],
        secret,
        description: 'benchmark receiver',
      })
      .execute();
    // Warm-up: the worker is up and has delivered for a while.
    ctx.log(`webhooks: warm-up (worker pid ${worker.pid})`);
    await record(ctx, small, 10, 0);
    if (!(await drain(ctx, webhookId, 30_000))) throw new Error('the worker delivered nothing in 30 s');
    await inject(ctx, small, rate, ctx.cfg.warmupS);
    if (!(await drain(ctx, webhookId, 10_000))) await discardBacklog(ctx, webhookId);

    // Capacity: a backlog larger than the window can drain, then deliveries per second.
    // 3 × the target: a worker that meets it with room to spare must not run dry in the window.
    const backlog = Math.round(rate * ctx.cfg.durationS * 3);
    ctx.log(`  capacity: recording a backlog of ${backlog} events`);
    for (let i = 0; i < backlog; i += 2000) await record(ctx, small, Math.min(2000, backlog - i), i);
    const cpuBefore = sampleCpu(worker.pid);
    const receiverBefore = sampleCpu(receiver.pid);
    const from = await dbNow(ctx);
    await sleep(ctx.cfg.durationS * 1000);
    const to = await dbNow(ctx);
    const delivered = await attemptsBetween(ctx, webhookId, from, to);
    const cpuW = perRequest(cpuBefore, sampleCpu(worker.pid), delivered);
    const cpuR = perRequest(receiverBefore, sampleCpu(receiver.pid), delivered);
    const cpu = `CPU per delivery: worker ${cpuW.serverUs} µs, receiver ${cpuR.serverUs} µs, PostgreSQL ${cpuW.postgresUs} µs, whole machine ${cpuW.machineUs} µs`;
    const left = await pending(ctx, webhookId);
    const capacity = delivered / ((to.getTime() - from.getTime()) / 1000);
    const dry = left === 0 ? '; the backlog ran out within the window, so this is a lower bound' : '';
    ctx.log(`  capacity: ${Math.round(capacity)} deliveries/s (${left} still queued${dry}); ${cpu}`);
    if (left > 0) await discardBacklog(ctx, webhookId);

    // Latency at the target rate; what is still queued 15 s after the last event counts with the
    // time it has waited so far (a lower bound), and is then dropped.
    const start = await dbNow(ctx);
    ctx.log(`  latency: recording ${rate} events/s for ${ctx.cfg.durationS} s`);
    const offered = await inject(ctx, small, rate, ctx.cfg.durationS);
    const drained = await drain(ctx, webhookId, 15_000);
    const lat = await sql<{ n: number; waiting: number; p50: number; p99: number; max: number }>`
      select count(*)::int as n, (count(*) filter (where first is null))::int as waiting,
             percentile_cont(0.5) within group (order by ms) as p50,
             percentile_cont(0.99) within group (order by ms) as p99, max(ms) as max
        from (select min(a.attempted_at) as first,
                     extract(epoch from coalesce(min(a.attempted_at), clock_timestamp()) - n.created_at) * 1000 as ms
                from webhook_notifications n left join webhook_attempts a on a.notification_id = n.id
               where n.webhook_id = ${webhookId} and n.created_at >= ${start}
               group by n.id, n.created_at) x`.execute(ctx.db);
    const l = lat.rows[0]!;
    if (!drained) await discardBacklog(ctx, webhookId);
    const stats = (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as {
      received: number;
      valid: number;
      invalid: number;
    };
    const failedAttempts = await sql<{ n: number }>`
      select count(*)::int as n from webhook_attempts a join webhook_notifications n on n.id = a.notification_id
       where n.webhook_id = ${webhookId} and (a.status_code is null or a.status_code >= 300)`.execute(ctx.db);
    const errors = stats.invalid + failedAttempts.rows[0]!.n;
    const rss = peakRssMb(worker.pid);
    const settings = `WEBHOOK_PER_ENDPOINT_CONCURRENCY=${perEndpoint}, WORKER_POLL_INTERVAL_MS=100`;
    const cut = l.waiting
      ? ` (${l.waiting} not attempted 15 s after the last event: counted with their wait so far, a lower bound)`
      : '';
    ctx.log(
      `  latency at ${Math.round(offered)}/s: p50 ${Math.round(l.p50)} ms, p99 ${Math.round(l.p99)} ms${cut}`,
    );
    ctx.results.push(
      {
        id: 'webhook_capacity',
        name: 'Webhooks: signed deliveries, one worker process',
        value: capacity,
        unit: 'deliveries/s',
        errors,
        goal: '≥ 1,500/s',
        goalMet: capacity >= 1500 && errors === 0,
        notes: `${settings}; ${stats.valid.toLocaleString('en')} signatures verified by the receiver, ${stats.invalid} invalid; ${cpu}${dry}`,
      },
      {
        id: 'webhook_latency',
        name: `Webhooks: event → first attempt at ${Math.round(offered).toLocaleString('en')} events/s`,
        value: l.p99,
        unit: 'ms (p99)',
        p50Ms: l.p50,
        p99Ms: l.p99,
        errors,
        goal: 'p99 ≤ 1,000 ms at 1,500/s',
        goalMet: l.p99 <= 1000 && offered >= 1500 * 0.98 && errors === 0,
        notes: `${l.n.toLocaleString('en')} notifications, max ${Math.round(l.max)} ms${cut}; worker peak RSS ${rss} MB`,
      },
    );
  } catch (err) {
    ctx.log(`webhook scenario failed: ${(err as Error).message}`);
    ctx.results.push(failed('webhook_capacity', 'Webhooks: signed deliveries', (err as Error).message));
  } finally {
    await worker?.stop();
    await receiver.stop();
    await ctx.db.updateTable('webhooks').set({ active: false }).where('id', '=', webhookId).execute();
  }
}
