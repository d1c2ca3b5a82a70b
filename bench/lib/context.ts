import type { Kysely } from 'kysely';
import { createAccount } from '../../src/accounts/service.ts';
import type { DB } from '../../src/db/schema.ts';
import type { BenchConfig } from './config.ts';
import { perRequest, sampleCpu } from './cpu.ts';
import type { BenchDatabase } from './db.ts';
import { type LoadSummary, runLoad } from './load.ts';
import { freePort, type Proc, startNode, waitForHttp } from './proc.ts';
import type { ScenarioResult } from './report.ts';

// What every scenario shares: settings, the run's database, the results so far, and helpers to
// start the API as users start it and to load one of its endpoints.

export interface Ctx {
  cfg: BenchConfig;
  bench: BenchDatabase;
  db: Kysely<DB>;
  results: ScenarioResult[];
  notes: string[];
  /** Temp directory of the run (carrier config, PGlite data, profiles). */
  tmp: string;
  log(message: string): void;
}

/** Settings of every API process: loud logging off, rate limits out of the way of the load. */
export const API_ENV: Record<string, string> = {
  LOG_LEVEL: 'warn',
  HOST: '127.0.0.1',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000000',
  RATE_LIMIT_CREATE_PER_MINUTE: '1000000000',
};

export interface Api {
  proc: Proc;
  url: string;
}

/** `node src/main.ts --role api` with the given environment, ready when /healthz answers. */
export async function startApi(ctx: Ctx, env: Record<string, string>, nodeArgs: string[] = []): Promise<Api> {
  const port = await freePort();
  const proc = startNode('api', [...nodeArgs, 'src/main.ts', '--role', 'api'], {
    ...API_ENV,
    PORT: String(port),
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, proc, 60_000);
  ctx.log(`api started (pid ${proc.pid}) at ${url}`);
  return { proc, url };
}

/** `node src/main.ts --role worker`; a worker answers /healthz on its PORT once started. */
export async function startWorkerProcess(name: string, env: Record<string, string>): Promise<Proc> {
  const port = await freePort();
  const proc = startNode(name, ['src/main.ts', '--role', 'worker'], {
    ...env,
    HOST: '127.0.0.1',
    PORT: String(port),
  });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, proc, 60_000);
  return proc;
}

export async function newAccount(db: Kysely<DB>, name: string): Promise<{ accountId: string; key: string }> {
  const { account, apiKey } = await createAccount(db, name);
  return { accountId: account.id, key: apiKey };
}

export interface HttpTarget {
  id: string;
  name: string;
  url: string;
  path: string;
  key?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** The server's pid, for the CPU split per request. */
  pid?: number;
  goal?: { minRatio?: number; maxP99Ms?: number };
  notes?: string;
}

/** Loads one endpoint and records the result; the ratio and the goal are settled at the end. */
export async function httpScenario(ctx: Ctx, t: HttpTarget): Promise<ScenarioResult> {
  ctx.log(`${t.name}: loading ${t.path}`);
  let summary: LoadSummary | null = null;
  let cpu: ReturnType<typeof perRequest> | null = null;
  let error: string | undefined;
  // One request first: a scenario answering errors is reported with the first answer's body.
  const headers = { ...t.headers, ...(t.key ? { authorization: `Token ${t.key}` } : {}) };
  const probe = await fetch(`${t.url}${t.path}`, { headers }).catch((err: Error) => err);
  if (probe instanceof Error) error = `probe failed: ${probe.message}`;
  else if (!probe.ok) error = `probe answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`;
  else await probe.arrayBuffer();
  try {
    const before = sampleCpu(t.pid ?? 0);
    const run = await runLoad({
      url: t.url,
      path: t.path,
      headers,
      connections: ctx.cfg.connections,
      durationS: ctx.cfg.durationS,
      warmupS: ctx.cfg.warmupS,
    });
    summary = run.measured;
    cpu = perRequest(before, sampleCpu(t.pid ?? 0), run.measured.requests + (run.warmup?.requests ?? 0));
  } catch (err) {
    error = (err as Error).message;
  }
  const r: ScenarioResult = {
    id: t.id,
    name: t.name,
    value: summary ? summary.rps : null,
    unit: 'req/s',
    ratio: null,
    p50Ms: summary?.latency.p50 ?? null,
    p99Ms: summary?.latency.p99 ?? null,
    errors: summary ? summary.errors + summary.timeouts + summary.non2xx : null,
    goal: goalText(t.goal),
    goalMet: t.goal ? false : null,
    notes:
      [
        error,
        t.notes,
        cpu &&
          `CPU per request: server ${cpu.serverUs} µs, PostgreSQL ${cpu.postgresUs} µs, whole machine ${cpu.machineUs} µs`,
      ]
        .filter(Boolean)
        .join('; ') || undefined,
    details: { ...summary, cpuPerRequest: cpu, goalSpec: t.goal ?? null },
  };
  ctx.results.push(r);
  ctx.log(
    `  ${summary ? `${Math.round(summary.rps)} req/s, p50 ${summary.latency.p50} ms, p99 ${summary.latency.p99} ms, errors ${r.errors}` : `failed: ${error}`}`,
  );
  return r;
}

export function goalText(goal: HttpTarget['goal'], extra: string[] = []): string {
  if (!goal) return '';
  const parts = [];
  if (goal.minRatio !== undefined) parts.push(`ratio ≥ ${goal.minRatio}`);
  if (goal.maxP99Ms !== undefined) parts.push(`p99 ≤ ${goal.maxP99Ms} ms`);
  parts.push('no errors', ...extra);
  return parts.join(', ');
}

/**
 * Fills in each HTTP scenario's ratio to the baseline and decides its goal: the ratio and p99
 * bounds, no errors or non-2xx answers, and any extra check the scenario recorded (`details.ok`).
 */
export function settle(results: ScenarioResult[], baselineRps: number): void {
  for (const r of results) {
    const d = (r.details ?? {}) as {
      goalSpec?: HttpTarget['goal'] | null;
      ok?: boolean;
      baselineRps?: number;
    };
    if (r.unit !== 'req/s' || d.goalSpec === undefined) continue;
    // A scenario measured against a baseline of its own (the traffic set: bare node:http) keeps it.
    r.ratio = r.value === null ? null : r.value / (d.baselineRps ?? baselineRps);
    const g = d.goalSpec;
    if (!g) continue;
    r.goalMet =
      r.value !== null &&
      r.errors === 0 &&
      d.ok !== false &&
      (g.minRatio === undefined || (r.ratio ?? 0) >= g.minRatio) &&
      (g.maxP99Ms === undefined || (r.p99Ms ?? Number.POSITIVE_INFINITY) <= g.maxP99Ms);
  }
}
