import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchConfig } from './lib/config.ts';
import { type Ctx, settle, startApi } from './lib/context.ts';
import { createBenchDatabase } from './lib/db.ts';
import { explainHotQueries, type Plan, plansMarkdown } from './lib/explain.ts';
import { peakRssMb, stopAll } from './lib/proc.ts';
import { latestProfile, type ProfileSummary, summarizeProfile } from './lib/profile.ts';
import { machineInfo, writeResults } from './lib/report.ts';
import { baselineScenario } from './scenarios/baseline.ts';
import { createScenario } from './scenarios/create.ts';
import { engineScenario } from './scenarios/engine.ts';
import { exportScenario } from './scenarios/export.ts';
import { pgliteScenario } from './scenarios/pglite.ts';
import {
  compare,
  databasePathScenarios,
  listLarge,
  prepareLarge,
  prepareSmall,
  readScenarios,
} from './scenarios/reads.ts';
import { smallHostScenarios } from './scenarios/small-host.ts';
import { throughputScenarios } from './scenarios/throughput.ts';
import { trafficScenarios } from './scenarios/traffic.ts';
import { webhookScenario } from './scenarios/webhooks.ts';

// `npm run bench`: every scenario next to a baseline measured in the same run, on this machine's
// PostgreSQL, in a database of its own. Writes bench/results/latest.{json,md}. See docs/benchmarks.md.

const cfg = benchConfig();
const started = performance.now();
const log = (m: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${m}\n`);
// Large mode is about the read scenarios on the full data set (and the traffic set on 100,000
// shipments); BENCH_ONLY or `--only` picks groups explicitly.
const want = (group: string) =>
  cfg.only.size > 0 ? cfg.only.has(group) : !cfg.large || group === 'api' || group === 'traffic';
// The Fastify baseline and the small account serve every group but the traffic set, which has its own.
const classic = ['api', 'engine', 'webhooks', 'pglite'].some(want);
const resultsDir = new URL('results/', import.meta.url).pathname;
mkdirSync(resultsDir, { recursive: true });

const bench = await createBenchDatabase(cfg.adminUrl);
const tmp = mkdtempSync(join(tmpdir(), 'tracker-bench-'));
const ctx: Ctx = { cfg, bench, db: bench.database.db, results: [], notes: [], tmp, log };
const machine = machineInfo(bench.serverVersion);
log(
  `database ${bench.name} (${bench.serverVersion}); ${machine.cpus} × ${machine.cpu}; Node ${machine.node}`,
);

async function cleanup() {
  await stopAll();
  await bench.drop().catch((err) => log(`could not drop ${bench.name}: ${(err as Error).message}`));
  rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void cleanup().then(() => process.exit(130)));

let plans: Plan[] = [];
let profile: ProfileSummary | null = null;
const seeding: Record<string, unknown> = {};
try {
  const first = classic
    ? await baselineScenario(ctx, 'baseline', 'Baseline: bare Fastify hello world (start of run)')
    : null;
  const small = classic ? await prepareSmall(ctx) : null;
  if (want('api') && small) {
    const profileDir = join(tmp, 'profiles');
    const api = await startApi(
      ctx,
      { DATABASE_URL: bench.url },
      cfg.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
    );
    const reads = await readScenarios(ctx, api, small, 'small');
    const large = await prepareLarge(ctx);
    Object.assign(seeding, {
      shipments: large.shipments,
      events: large.events,
      seconds: large.seedSeconds,
      rowsPerSecond: large.rowsPerSecond,
    });
    ctx.notes.push(
      `Large account seeded with ${large.shipments.toLocaleString('en')} shipments, ${(large.shipments * 3).toLocaleString('en')} containers and ${large.events.toLocaleString('en')} transport events in ${large.seedSeconds.toFixed(0)} s (${Math.round(large.rowsPerSecond).toLocaleString('en')} rows/s, tracking requests included).`,
    );
    const list = await listLarge(ctx, api, large);
    if (reads.list)
      compare(ctx, 'list_large_vs_small', 'List: 100,000-shipment account vs 100', reads.list, list);
    if (cfg.large) {
      const lr = await readScenarios(ctx, api, small, 'large');
      compare(
        ctx,
        'get_shipment_large_vs_small',
        'Get shipment: large vs small database',
        reads.shipment,
        lr.shipment,
      );
      compare(
        ctx,
        'events_large_vs_small',
        'Transport events: large vs small database',
        reads.events,
        lr.events,
      );
    }
    const rss = peakRssMb(api.proc.pid);
    ctx.results.push({
      id: 'memory_api',
      name: 'Memory: peak RSS of the API process (read scenarios)',
      value: rss,
      unit: 'MB',
      goal: '≤ 200 MB',
      goalMet: rss !== null && rss <= 200,
      notes: 'VmHWM after the read scenarios',
    });
    const dbPath = await databasePathScenarios(ctx, api, small, large);
    compare(
      ctx,
      'list_large_vs_small_db',
      'List: 100,000-shipment account vs 100, database path (no-cache)',
      dbPath.listSmall,
      dbPath.listLarge,
    );
    const rssDb = peakRssMb(api.proc.pid);
    ctx.results.push({
      id: 'memory_api_db',
      name: 'Diagnostic: peak RSS of the API process, database-path reads included',
      value: rssDb,
      unit: 'MB',
      goal: '',
      goalMet: null,
      notes: 'VmHWM after the database-path diagnostics as well',
    });
    plans = await explainHotQueries(bench.url, {
      key: small.key,
      accountId: small.accountId,
      shipmentId: small.shipmentId,
      containerId: small.containerId,
      largeAccountId: large.accountId,
    });
    await createScenario(ctx, api);
    await api.proc.stop();
    if (cfg.profile) {
      const file = latestProfile(profileDir);
      if (file) {
        profile = summarizeProfile(file);
        const kept = join(tmpdir(), 'tracker-bench-api.cpuprofile');
        copyFileSync(file, kept);
        log(`API profile: ${kept}`);
        for (const f of profile.functions.slice(0, 10))
          log(`  ${(f.share * 100).toFixed(1).padStart(5)}%  ${f.name}`);
      }
    }
  }
  if (want('engine')) await engineScenario(ctx);
  if (want('webhooks') && small) await webhookScenario(ctx, small);
  if (want('pglite')) await pgliteScenario(ctx);
  if (want('traffic')) await trafficScenarios(ctx);
  if (want('throughput')) await throughputScenarios(ctx);
  if (want('export')) await exportScenario(ctx);
  if (want('small-host')) await smallHostScenarios(ctx);
  const last = first
    ? await baselineScenario(ctx, 'baseline_end', 'Baseline: bare Fastify hello world (end of run)')
    : null;
  const baseline = ((first?.value ?? 0) + (last?.value ?? 0)) / 2 || (first?.value ?? last?.value ?? 1);
  if (first)
    ctx.notes.unshift(
      `Ratios divide by the mean of the two baseline runs (${Math.round(baseline).toLocaleString('en')} req/s), except the traffic set's (bare node:http).`,
    );
  settle(ctx.results, baseline);
} catch (err) {
  log(`run failed: ${(err as Error).stack}`);
  ctx.notes.push(`Run failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}

if (plans.length) {
  writeFileSync(
    join(resultsDir, 'latest-plans.md'),
    plansMarkdown(
      plans,
      `Query plans of the hot endpoints (${cfg.large ? 'large data set' : 'default'} mode)`,
    ),
  );
}
const md = writeResults(machine, cfg, ctx.results, ctx.notes, {
  seeding,
  profile,
  plans,
  totalSeconds: Math.round((performance.now() - started) / 1000),
});
process.stdout.write(`\n${md}`);
const single = cfg.only.size === 1 ? [...cfg.only][0] : '';
const written = ['traffic', 'throughput', 'export', 'small-host'].includes(single ?? '')
  ? `latest-${single}`
  : 'latest';
log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s; bench/results/${written}*.md written`);
