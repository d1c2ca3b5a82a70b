import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Ctx } from '../lib/context.ts';
import { type CpuSample, perRequest, sampleCpu, stealShare } from '../lib/cpu.ts';
import { createBenchDatabase } from '../lib/db.ts';
import { peakRssMb, sleep } from '../lib/proc.ts';
import { latestProfile, type ProfileSummary, summarizeProfile } from '../lib/profile.ts';
import type { ScenarioResult } from '../lib/report.ts';
import { pgliteReader, seedTraffic, type TrafficData } from '../lib/traffic-data.ts';
import { runWrk } from '../lib/wrk.ts';
import { bareBaseline, cacheLookups, type Service, startService } from './traffic.ts';

// Throughput on real work (issue 30, item 3): the mixed load (90% shipment reads by random id,
// 10% tracking-request creates) with the creates on the sandbox line TEST, numbers it tracks
// (SIMBL1C…), so the worker of `npm start` (role all, the same process) looks up, normalises and
// stores a whole journey per create, as it does for a real carrier. Each engine's service runs
// with --cpu-prof; after the load the run waits until every create is tracked (status created,
// none failed). Then a creates-only phase (no reads) gives journeys per second and CPU per
// journey without the reads' share. Ratios divide by a bare node:http server loaded the same way
// in the same run. `npm run bench -- --only throughput`.

const GOAL = { minRatio: 0.04 };
/** How long the run waits for the worker to track every create before it calls the run failed. */
const TRACK_LIMIT_MS = 300_000;

interface Counts {
  total: number;
  created: number;
  failed: number;
}

async function total(svc: Service, key: string, filter: string): Promise<number> {
  const res = await fetch(`${svc.url}/v2/tracking_requests?filter[scac]=TEST${filter}&page[size]=1`, {
    headers: { authorization: `Token ${key}` },
  });
  const body = (await res.json()) as { meta?: { total?: number } };
  if (!res.ok || typeof body.meta?.total !== 'number')
    throw new Error(`tracking request count answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.meta.total;
}

/** The account's sandbox tracking requests, through the API as a user would count them. */
async function counts(svc: Service, key: string): Promise<Counts> {
  const [all, created, failed] = await Promise.all([
    total(svc, key, ''),
    total(svc, key, '&filter[status]=created'),
    total(svc, key, '&filter[status]=failed'),
  ]);
  return { total: all, created, failed };
}

/** Waits until every sandbox request is tracked (or failed, or the limit passes); when it settled. */
async function tracked(svc: Service, key: string): Promise<{ counts: Counts; at: number }> {
  const until = Date.now() + TRACK_LIMIT_MS;
  for (;;) {
    const c = await counts(svc, key);
    if (c.created + c.failed >= c.total || Date.now() > until) return { counts: c, at: performance.now() };
    await sleep(100);
  }
}

/** `n` creates on the sandbox line, `concurrency` at a time, with no reads; the 201s answered. */
async function createMany(svc: Service, key: string, prefix: string, n: number, concurrency: number) {
  let next = 0;
  let ok = 0;
  const one = async () => {
    while (next < n) {
      const i = next++;
      const res = await fetch(`${svc.url}/v2/tracking_requests`, {
        method: 'POST',
        headers: { authorization: `Token ${key}`, 'content-type': 'application/vnd.api+json' },
        body: JSON.stringify({
          data: {
            type: 'tracking_request',
            attributes: { request_type: 'bill_of_lading', request_number: `${prefix}${i}`, scac: 'TEST' },
          },
        }),
      });
      await res.arrayBuffer();
      if (res.status === 201) ok++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, one));
  return ok;
}

const us = (ms: number, n: number) => Math.round((ms * 1000) / Math.max(1, n));

function postgresMs(a: CpuSample, b: CpuSample): number {
  let ms = 0;
  for (const [pid, v] of b.postgres) ms += v - (a.postgres.get(pid) ?? 0);
  return ms;
}

export function profileLines(p: ProfileSummary, top = 12): string[] {
  const pct = (s: number) => `${(s * 100).toFixed(1)}%`;
  return [
    `busy ${p.totalMs.toLocaleString('en')} ms sampled`,
    `modules: ${p.modules
      .slice(0, top)
      .map((m) => `${m.name} ${pct(m.share)}`)
      .join(', ')}`,
    `functions: ${p.functions
      .slice(0, top)
      .map((f) => `${f.name} ${pct(f.share)}`)
      .join(', ')}`,
  ];
}

async function engineRun(
  ctx: Ctx,
  engine: string,
  env: Record<string, string>,
  data: TrafficData,
): Promise<ScenarioResult[]> {
  const out: ScenarioResult[] = [];
  const tag = randomBytes(3).toString('hex').toUpperCase();
  const profileDir = join(ctx.tmp, `profile-${engine}`);
  const svc = await startService(ctx, `${engine}, throughput`, env, [
    '--cpu-prof',
    `--cpu-prof-dir=${profileDir}`,
  ]);
  const id = `throughput_${engine.toLowerCase()}`;
  try {
    // The mixed load, then the wait until the worker has tracked every create.
    ctx.log(`throughput ${engine}: mixed load, creates on TEST`);
    const startCounts = await counts(svc, data.key);
    const lookups = await cacheLookups(svc);
    const before = sampleCpu(svc.proc.pid);
    const { measured, warmup } = await runWrk({
      url: svc.url,
      path: '/',
      headers: { authorization: `Token ${data.key}` },
      connections: ctx.cfg.connections,
      durationS: ctx.cfg.durationS,
      warmupS: ctx.cfg.warmupS + 3,
      random: { idsFile: data.shipmentIds, template: '/v2/shipments/{id}?include=containers' },
      creates: { share: 0.1, scac: 'TEST', prefix: `SIMBL1C-${tag}-` },
    });
    const loadEnd = sampleCpu(svc.proc.pid);
    const lookedUp = await cacheLookups(svc);
    const hits = lookedUp.hit - lookups.hit;
    const looked = hits + lookedUp.miss - lookups.miss;
    const hitRate = looked > 0 ? hits / looked : null;
    const settled = await tracked(svc, data.key);
    const after = sampleCpu(svc.proc.pid);
    const journeys = settled.counts.created - startCounts.created;
    const creates = settled.counts.total - startCounts.total;
    const failed = settled.counts.failed - startCounts.failed;
    const allTracked = settled.counts.created === settled.counts.total;
    const cpu = perRequest(before, loadEnd, measured.requests + (warmup?.requests ?? 0));
    const windowS = (settled.at - before.at) / 1000;
    const drainS = (settled.at - loadEnd.at) / 1000;
    const errors = measured.errors + measured.timeouts + measured.non2xx;
    ctx.log(
      `  ${Math.round(measured.rps)} req/s, errors ${errors}, ${creates} creates, ${journeys} tracked (${failed} failed) ${drainS.toFixed(1)} s after the load; cache hit rate ${hitRate === null ? '–' : `${(hitRate * 100).toFixed(0)}%`}`,
    );
    out.push({
      id: `${id}_mixed`,
      name: `Throughput ${engine}: mixed 90% GET shipment (random id), 10% POST tracking request on TEST (a journey stored per create)`,
      value: measured.rps,
      unit: 'req/s',
      p50Ms: measured.latency.p50,
      p99Ms: measured.latency.p99,
      errors,
      goal: 'ratio ≥ 0.04, no errors, every create tracked',
      goalMet: false,
      notes: [
        `${creates} creates (warm-up included), ${journeys} tracked, ${failed} failed, the last ${drainS.toFixed(1)} s after the load ended`,
        `journeys stored ${(journeys / windowS).toFixed(1)}/s over load and drain (${windowS.toFixed(1)} s)`,
        `response cache hit rate of the reads ${hitRate === null ? '–' : `${(hitRate * 100).toFixed(0)}%`} (warm-up included)`,
        `CPU per request during the load: service ${cpu.serverUs} µs, PostgreSQL ${cpu.postgresUs} µs, whole machine ${cpu.machineUs} µs`,
        `peak RSS ${peakRssMb(svc.proc.pid)} MB; host steal ${(stealShare(before, after) * 100).toFixed(0)}%`,
      ].join('; '),
      details: {
        ...measured,
        warmup,
        creates,
        journeys,
        failed,
        drainS,
        cpuPerRequest: cpu,
        cacheHitRate: hitRate,
        goalSpec: GOAL,
        ok: allTracked && failed === 0,
      },
    });

    // Creates alone: the journey's own cost, from the first POST until the last is tracked.
    const n = ctx.cfg.throughputJourneys;
    ctx.log(`throughput ${engine}: ${n} creates alone`);
    const c0 = await counts(svc, data.key);
    const a = sampleCpu(svc.proc.pid);
    const ok = await createMany(svc, data.key, `SIMBL1C-${tag}-ALONE-`, n, 10);
    const done = await tracked(svc, data.key);
    const b = sampleCpu(svc.proc.pid);
    const stored = done.counts.created - c0.created;
    const seconds = (done.at - a.at) / 1000;
    const serverUs = us(b.server - a.server, stored);
    const pgUs = us(postgresMs(a, b), stored);
    ctx.log(
      `  ${stored}/${n} tracked in ${seconds.toFixed(1)} s: ${(stored / seconds).toFixed(1)} journeys/s, service ${serverUs} µs, PostgreSQL ${pgUs} µs per journey`,
    );
    out.push({
      id: `${id}_journeys`,
      name: `Throughput ${engine}: journeys stored per second, creates alone (POST then tracked)`,
      value: stored / seconds,
      unit: 'journeys/s',
      errors: n - ok + (done.counts.failed - c0.failed),
      goal: '',
      goalMet: null,
      notes: `${ok} of ${n} answered 201, ${stored} tracked in ${seconds.toFixed(1)} s (10 at a time); CPU per journey: service ${serverUs} µs, PostgreSQL ${pgUs} µs, whole machine ${us(b.total - a.total, stored)} µs`,
      details: { stored, seconds, serverUs, postgresUs: pgUs, machineUs: us(b.total - a.total, stored) },
    });
  } catch (err) {
    // What the service said last: a failed fetch is most often the service gone.
    ctx.log(`throughput ${engine}: the service's last output:\n${svc.proc.output().slice(-3000)}`);
    throw err;
  } finally {
    await svc.proc.stop(30_000);
  }
  const file = latestProfile(profileDir);
  if (file) {
    const p = summarizeProfile(file, 20);
    // Kept past the run (its temp directory goes) for a closer look in Chrome DevTools.
    const kept = join(tmpdir(), `tracker-bench-throughput-${engine.toLowerCase()}.cpuprofile`);
    copyFileSync(file, kept);
    ctx.log(`throughput ${engine}: profile ${kept}`);
    for (const line of profileLines(p)) ctx.log(`  ${line}`);
    out.push({
      id: `${id}_profile`,
      name: `Throughput ${engine}: CPU profile of the service (both phases)`,
      value: p.totalMs,
      unit: 'ms busy',
      goal: '',
      goalMet: null,
      notes: profileLines(p).join('; '),
      details: p,
    });
  }
  return out;
}

export async function throughputScenarios(ctx: Ctx): Promise<void> {
  const dir = join(ctx.tmp, 'throughput');
  mkdirSync(dir, { recursive: true });
  const measured: ScenarioResult[] = [];
  const first = await bareBaseline(ctx, 'throughput_baseline', 'Throughput baseline: bare node:http (start)');
  const engines = ctx.cfg.throughputEngines;
  if (engines.includes('postgres')) {
    const pg = await createBenchDatabase(ctx.cfg.adminUrl);
    try {
      const env = { DATABASE_URL: pg.url };
      const pgDir = join(dir, 'pg');
      mkdirSync(pgDir, { recursive: true });
      const data = await seedTraffic(ctx, env, ctx.cfg.throughputShipments, pgDir, async () => ({
        db: pg.database.db,
        close: async () => {},
      }));
      measured.push(...(await engineRun(ctx, 'PostgreSQL', env, data)));
    } finally {
      await pg.drop().catch((err) => ctx.log(`could not drop ${pg.name}: ${(err as Error).message}`));
    }
  }
  if (engines.includes('pglite')) {
    const dataDir = join(dir, 'pglite');
    const env = { DATABASE_URL: '', DATA_DIR: dataDir };
    const idsDir = join(dir, 'pglite-ids');
    mkdirSync(idsDir, { recursive: true });
    const data = await seedTraffic(ctx, env, ctx.cfg.throughputShipments, idsDir, () =>
      pgliteReader(dataDir),
    );
    measured.push(...(await engineRun(ctx, 'PGlite', env, data)));
  }
  const last = await bareBaseline(
    ctx,
    'throughput_baseline_end',
    'Throughput baseline: bare node:http (end)',
  );
  const base = ((first.value ?? 0) + (last.value ?? 0)) / 2 || first.value || last.value || 1;
  for (const r of [first, last, ...measured]) r.details = { ...(r.details as object), baselineRps: base };
  ctx.results.push(...measured);
  ctx.notes.push(
    `Throughput ratios divide by the mean of the two bare node:http runs (${Math.round(base).toLocaleString('en')} req/s); ${ctx.cfg.throughputShipments.toLocaleString('en')} seeded shipments per engine.`,
  );
}
