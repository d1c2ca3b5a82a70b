import { randomBytes } from 'node:crypto';
import { type Api, type Ctx, goalText, newAccount } from '../lib/context.ts';
import { perRequest, sampleCpu } from '../lib/cpu.ts';
import { runLoad } from '../lib/load.ts';
import type { ScenarioResult } from '../lib/report.ts';

// POST /v2/tracking_requests, every request with its own number (the create limit is raised for
// the run). Durability check: the rows stored equal the 201s answered, warm-up included.

export async function createScenario(ctx: Ctx, api: Api): Promise<ScenarioResult> {
  const { accountId, key } = await newAccount(ctx.db, 'bench-create');
  const tag = randomBytes(3).toString('hex').toUpperCase();
  ctx.log('POST /v2/tracking_requests: loading');
  const goal = { minRatio: 0.1 };
  const r: ScenarioResult = {
    id: 'create_tracking_request',
    name: 'POST /v2/tracking_requests (distinct numbers; rows stored = 201s)',
    value: null,
    unit: 'req/s',
    goal: goalText(goal, ['rows = 201s']),
    goalMet: false,
  };
  try {
    const before = sampleCpu(api.proc.pid);
    const { measured, warmup } = await runLoad({
      url: api.url,
      path: '/v2/tracking_requests',
      headers: { authorization: `Token ${key}` },
      connections: ctx.cfg.connections,
      durationS: ctx.cfg.durationS,
      warmupS: ctx.cfg.warmupS,
      // Simulator scenario numbers, so a worker could track them.
      trackingRequests: { scac: 'TEST', prefix: `SIMBL1C-${tag}-` },
    });
    const cpu = perRequest(before, sampleCpu(api.proc.pid), measured.requests + (warmup?.requests ?? 0));
    const created = (measured.statusCodes['201'] ?? 0) + (warmup?.statusCodes['201'] ?? 0);
    const row = await ctx.db
      .selectFrom('tracking_requests')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    const rows = Number(row.n);
    Object.assign(r, {
      value: measured.rps,
      p50Ms: measured.latency.p50,
      p99Ms: measured.latency.p99,
      errors: measured.errors + measured.timeouts + measured.non2xx,
      notes: `${rows.toLocaleString('en')} rows stored, ${created.toLocaleString('en')} answered 201 (warm-up included); CPU per request: server ${cpu.serverUs} µs, PostgreSQL ${cpu.postgresUs} µs, whole machine ${cpu.machineUs} µs`,
      details: {
        ...measured,
        warmup,
        rows,
        created,
        ok: rows === created,
        cpuPerRequest: cpu,
        goalSpec: goal,
      },
    });
    ctx.log(
      `  ${Math.round(measured.rps)} req/s, p99 ${measured.latency.p99} ms; ${rows} rows, ${created} 201s`,
    );
  } catch (err) {
    r.notes = (err as Error).message;
    r.details = { goalSpec: goal };
  }
  // The requests stay pending; the worker scenarios that follow must not attempt them.
  await ctx.db.deleteFrom('tracking_requests').where('account_id', '=', accountId).execute();
  ctx.results.push(r);
  return r;
}
