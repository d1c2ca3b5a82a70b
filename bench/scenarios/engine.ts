import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { type Ctx, newAccount, startWorkerProcess } from '../lib/context.ts';
import { perRequest, sampleCpu } from '../lib/cpu.ts';
import { freePort, type Proc, peakRssMb, sleep, startNode } from '../lib/proc.ts';
import { failed } from '../lib/report.ts';

// Shipment refreshes per second against the carrier simulator (its own process), with one and then
// two worker processes. N shipments (SIMBL3C numbers: 3 containers each) are inserted due; a first
// pass gives each its containers and events, then every refresh is a steady-state one. With
// REFRESH_INTERVAL_MS=1000 a shipment is due again a second after its refresh, so the queue never
// runs dry; completed refreshes are counted as changes of line_tracking_last_attempted_at between
// snapshots taken every 200 ms (a shipment cannot complete two refreshes within one).

const SIM_KEY = 'bench-sim-key';

function workerEnv(ctx: Ctx, carriersConfig: string): Record<string, string> {
  return {
    DATABASE_URL: ctx.bench.url,
    CARRIERS_CONFIG: carriersConfig,
    LOG_LEVEL: 'warn',
    REFRESH_INTERVAL_MS: '1000',
    REFRESH_NEAR_ARRIVAL_MS: '1000',
    WORKER_POLL_INTERVAL_MS: '100',
    WORKER_CONCURRENCY: String(ctx.cfg.workerConcurrency),
    DB_POOL_SIZE: String(ctx.cfg.workerPoolSize),
  };
}

async function snapshot(ctx: Ctx, accountId: string): Promise<Map<string, number>> {
  const r = await sql<{ id: string; t: number | null }>`
    select id, (extract(epoch from line_tracking_last_attempted_at) * 1000)::float8 as t
      from shipments where account_id = ${accountId}`.execute(ctx.db);
  return new Map(r.rows.map((x) => [x.id, x.t ?? 0]));
}

/** Completed refreshes per second over `seconds`, and the CPU each took (workers, simulator, PostgreSQL). */
async function countRefreshes(
  ctx: Ctx,
  accountId: string,
  seconds: number,
  workers: Proc[],
  sim: Proc,
): Promise<{ rate: number; cpu: string }> {
  const cpuBefore = [sampleCpu(workers.map((w) => w.pid)), sampleCpu(sim.pid)];
  let last = await snapshot(ctx, accountId);
  const start = performance.now();
  let end = start;
  let count = 0;
  while (performance.now() - start < seconds * 1000) {
    await sleep(200);
    const next = await snapshot(ctx, accountId);
    end = performance.now();
    for (const [id, t] of next) if (t !== last.get(id)) count++;
    last = next;
  }
  const w = perRequest(cpuBefore[0]!, sampleCpu(workers.map((x) => x.pid)), count);
  const s = perRequest(cpuBefore[1]!, sampleCpu(sim.pid), count);
  const cpu = `CPU per refresh: worker ${w.serverUs} µs, simulator ${s.serverUs} µs, PostgreSQL ${w.postgresUs} µs, whole machine ${w.machineUs} µs`;
  return { rate: count / ((end - start) / 1000), cpu };
}

async function waitFirstPass(ctx: Ctx, accountId: string, n: number, workers: Proc[]): Promise<number> {
  const started = performance.now();
  for (;;) {
    const r = await ctx.db
      .selectFrom('shipments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('line_tracking_last_attempted_at', 'is not', null)
      .executeTakeFirstOrThrow();
    const done = Number(r.n);
    if (done >= n) return (performance.now() - started) / 1000;
    if (performance.now() - started > 180_000)
      throw new Error(`first pass: only ${done}/${n} shipments refreshed after 180 s`);
    for (const w of workers)
      if (w.child.exitCode !== null) throw new Error(`worker exited:\n${w.output().slice(-3000)}`);
    await sleep(1000);
  }
}

export async function engineScenario(ctx: Ctx): Promise<void> {
  const n = ctx.cfg.engineShipments;
  const simPort = await freePort();
  const sim = startNode('simulator', [
    'sim/main.ts',
    '--port',
    String(simPort),
    '--header',
    `x-api-key: ${SIM_KEY}`,
  ]);
  const workers: Proc[] = [];
  const { accountId } = await newAccount(ctx.db, 'bench-engine');
  try {
    await sim.waitFor(/carrier simulator: /);
    const carriersConfig = join(ctx.tmp, 'carriers.json');
    writeFileSync(
      carriersConfig,
      JSON.stringify([
        {
          scac: 'TEST',
          adapter: 'dcsa-tnt-v2',
          base_url: `http://127.0.0.1:${simPort}`,
          auth: { type: 'headers', headers: { 'x-api-key': SIM_KEY } },
          requests_per_minute: 100_000,
          number_types: ['bill_of_lading', 'booking_number', 'container'],
        },
      ]),
    );
    await sql`
      insert into shipments (id, account_id, scac, request_type, normalized_number, bill_of_lading_number,
                             next_refresh_at)
      select gen_random_uuid(), ${accountId}::uuid, 'TEST', 'bill_of_lading', 'SIMBL3CBENCH' || lpad(i::text, 6, '0'),
             'SIMBL3CBENCH' || lpad(i::text, 6, '0'), now()
        from generate_series(1, ${n}::int) i`.execute(ctx.db);

    const env = workerEnv(ctx, carriersConfig);
    workers.push(await startWorkerProcess('worker-1', env));
    ctx.log(`engine: first pass over ${n} shipments (one worker, pid ${workers[0]!.pid})`);
    const firstPass = await waitFirstPass(ctx, accountId, n, workers);
    ctx.log(`  first pass: ${firstPass.toFixed(1)} s (${Math.round(n / firstPass)} first refreshes/s)`);
    await sleep(ctx.cfg.warmupS * 1000);
    const first = await countRefreshes(ctx, accountId, ctx.cfg.durationS, workers, sim);
    const one = first.rate;
    ctx.log(`  one worker: ${Math.round(one)} refreshes/s; ${first.cpu}`);

    workers.push(await startWorkerProcess('worker-2', env));
    await sleep(ctx.cfg.warmupS * 1000);
    const second = await countRefreshes(ctx, accountId, ctx.cfg.durationS, workers, sim);
    const two = second.rate;
    ctx.log(`  two workers: ${Math.round(two)} refreshes/s; ${second.cpu}`);
    const rss = workers.map((w) => peakRssMb(w.pid));
    for (const w of workers)
      if (w.child.exitCode !== null)
        ctx.log(`  ${w.name} exited (${w.child.exitCode}):\n${w.output().slice(-2000)}`);
    const failures = await ctx.db
      .selectFrom('shipments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('refresh_failures', '>', 0)
      .executeTakeFirstOrThrow();
    const errors = Number(failures.n);
    const settings = `WORKER_CONCURRENCY=${ctx.cfg.workerConcurrency}, DB_POOL_SIZE=${ctx.cfg.workerPoolSize}, REFRESH_INTERVAL_MS=1000, ${n} shipments`;
    ctx.results.push(
      {
        id: 'engine_one_worker',
        name: 'Engine: shipment refreshes, one worker process',
        value: one,
        unit: 'refreshes/s',
        errors,
        goal: '≥ 500/s',
        goalMet: one >= 500,
        notes: `${settings}; first pass (creates containers and events) ${Math.round(n / firstPass)}/s; ${first.cpu}`,
      },
      {
        id: 'engine_two_workers',
        name: 'Engine: shipment refreshes, two worker processes',
        value: two,
        unit: 'refreshes/s',
        errors,
        goal: '≥ 1.3 × one worker',
        goalMet: two >= 1.3 * one,
        notes: `${(two / one).toFixed(2)} × one worker; ${second.cpu}`,
        details: { ratioToOne: two / one },
      },
      {
        id: 'memory_worker',
        name: 'Memory: peak RSS of a worker process (engine scenario)',
        value: rss[0] ?? null,
        unit: 'MB',
        goal: '≤ 300 MB',
        goalMet: rss[0] !== null && rss[0] !== undefined && rss[0] <= 300,
        notes: `VmHWM; second worker ${rss[1]} MB`,
      },
    );
  } catch (err) {
    ctx.log(`engine scenario failed: ${(err as Error).message}`);
    ctx.results.push(failed('engine_one_worker', 'Engine: shipment refreshes', (err as Error).message));
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await sim.stop();
    await ctx.db
      .updateTable('shipments')
      .set({ next_refresh_at: null })
      .where('account_id', '=', accountId)
      .execute();
  }
}
