import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Ctx, goalText } from '../lib/context.ts';
import { perRequest, sampleCpu } from '../lib/cpu.ts';
import { createBenchDatabase } from '../lib/db.ts';
import { type Group, groupPids, sampleGroup, startGroup } from '../lib/group.ts';
import { runLoad } from '../lib/load.ts';
import { freePort, sleep, startNode, waitForHttp } from '../lib/proc.ts';
import type { ScenarioResult } from '../lib/report.ts';

// Small hosts (issue 30, items 1, 2 and 4): `npm start` as a new user runs it, on an empty DATA_DIR
// and nothing else configured but the port (plus the bench's usual request logging off and rate
// limits out of the load's way), in a process group of its own whose every process's resident set
// is summed every 50 ms: npm, the shell npm runs the script with, node. Through: the start, 100
// tracking requests on the sandbox line (SCAC TEST, SIMBL1C numbers; the worker of the same
// process looks up and stores each journey) until all are tracked, shipment reads by random id
// under load with the response cache as shipped, then BENCH_SMALL_HOST_IDLE_S of idle. Then the
// same data directory is started again with RESPONSE_CACHE_MB=0 for the cache-off reads. Read
// ratios divide by a bare node:http server loaded by the same autocannon child in the same run.
//
// BENCH_SMALL_HOST_ENGINES (pglite,postgres): on postgres, DATABASE_URL names a fresh database of
// its own (dropped afterwards); PostgreSQL's own processes are outside the group and not counted.
// BENCH_SMALL_HOST_FLAGS: options to compare side by side, `;`-separated sets of node flags, each
// run as `npm start` with those flags in place of the start script's (bench/lib/start-shell.sh);
// the entry `shipped` is `npm start` as it is (the default).

const TRACKED = 100;
const GOALS = { peakMb: 300, idleMb: 200, shipped: 0.21, cacheOff: 0.1 };

interface Variant {
  label: string;
  args: string[];
  env: Record<string, string>;
}

const SHELL = new URL('../lib/start-shell.sh', import.meta.url).pathname;

function variants(spec: string | undefined): Variant[] {
  const list = (spec || 'shipped')
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
  return list.map(
    (flags): Variant =>
      flags === 'shipped'
        ? { label: 'npm start (as shipped)', args: ['start'], env: {} }
        : {
            // `npm start` itself, its script run by a shell that swaps the node flags (npm, a shell,
            // node: the same processes as shipped).
            label: `npm start with node ${flags}`,
            args: ['start', `--script-shell=${SHELL}`],
            env: { SMALL_HOST_NODE_FLAGS: flags },
          },
  );
}

/** What a new user's shell has, and nothing the bench itself runs with. */
function userEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'USER', 'LANG', 'TMPDIR', 'TERM']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return {
    ...env,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_DEFAULT_PER_MINUTE: '1000000000',
    RATE_LIMIT_CREATE_PER_MINUTE: '1000000000',
    ...extra,
  };
}

async function bare(ctx: Ctx): Promise<number> {
  const port = await freePort();
  const proc = startNode('bare', ['bench/servers/bare.ts', '--port', String(port)]);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/`, proc);
    const { measured } = await runLoad({
      url: `http://127.0.0.1:${port}`,
      path: '/',
      connections: ctx.cfg.connections,
      durationS: ctx.cfg.durationS,
      warmupS: ctx.cfg.warmupS,
    });
    ctx.log(`small host: bare node:http ${Math.round(measured.rps)} req/s`);
    return measured.rps;
  } finally {
    await proc.stop();
  }
}

async function api(url: string, key: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${url}${path}`, {
    ...init,
    headers: {
      authorization: `Token ${key}`,
      'content-type': 'application/vnd.api+json',
      ...(init.headers as Record<string, string>),
    },
  });
  const body = (await res.json()) as Record<string, any>;
  return { status: res.status, body };
}

async function start(
  v: Variant,
  env: Record<string, string>,
): Promise<{ group: Group; url: string; sampler: ReturnType<typeof sampleGroup> }> {
  const port = await freePort();
  const group = startGroup('npm', v.args, userEnv({ ...env, ...v.env, PORT: String(port) }));
  const sampler = sampleGroup(group.pgid);
  const url = `http://127.0.0.1:${port}`;
  const until = Date.now() + 120_000;
  for (;;) {
    if (group.child.exitCode !== null) throw new Error(`start failed:\n${group.output().slice(-3000)}`);
    const ok = await fetch(`${url}/healthz`)
      .then(async (r) => {
        await r.arrayBuffer();
        return r.ok;
      })
      .catch(() => false);
    if (ok) break;
    if (Date.now() > until) throw new Error(`not ready after 120 s:\n${group.output().slice(-3000)}`);
    await sleep(100);
  }
  return { group, url, sampler };
}

/** The reads, and the CPU each took: the group's processes (the service), PostgreSQL's, the machine's. */
async function reads(ctx: Ctx, url: string, key: string, idsFile: string, pgid: number) {
  const before = sampleCpu(groupPids(pgid));
  const { measured, warmup } = await runLoad({
    url,
    path: '/',
    headers: { authorization: `Token ${key}` },
    connections: ctx.cfg.connections,
    durationS: ctx.cfg.durationS,
    // Longer than the other scenarios: a process that has just started still compiles its paths.
    warmupS: ctx.cfg.warmupS + 3,
    random: { idsFile, template: '/v2/shipments/{id}?include=containers' },
  });
  const cpu = perRequest(before, sampleCpu(groupPids(pgid)), measured.requests + (warmup?.requests ?? 0));
  return { ...measured, cpu };
}

const mb = (x: number | null | undefined) => (x === null || x === undefined ? null : Math.round(x));
const split = (by: Record<string, number>) =>
  Object.entries(by)
    .map(([k, v]) => `${k} ${Math.round(v)}`)
    .join(', ');

async function one(ctx: Ctx, engine: string, v: Variant, env: Record<string, string>, dir: string) {
  const out: ScenarioResult[] = [];
  const id = `small_host_${engine}_${v.label.replace(/[^a-z0-9]+/gi, '_').toLowerCase()}`.slice(0, 80);
  const name = `Small host, ${engine === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'}, ${v.label}`;
  const goals = engine === 'pglite';
  const tag = randomBytes(3).toString('hex').toUpperCase();
  ctx.log(`small host: ${name}`);
  const first = await start(v, env);
  const s = first.sampler;
  let readyAt = s.now();
  let trackedAt = 0;
  let loadEnd = 0;
  let idleEnd = 0;
  let shipped: Awaited<ReturnType<typeof reads>> | null = null;
  let key = '';
  const idsFile = join(dir, 'ids.json');
  try {
    readyAt = s.now();
    key = (await first.group.waitFor(/api key: (\S+)/, 10_000))[1]!;
    // 100 creates, 10 at a time, then wait until the worker has tracked every one.
    let next = 0;
    let created = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < TRACKED) {
          const i = next++;
          const r = await api(first.url, key, '/v2/tracking_requests', {
            method: 'POST',
            body: JSON.stringify({
              data: {
                type: 'tracking_request',
                attributes: {
                  request_type: 'bill_of_lading',
                  request_number: `SIMBL1C-${tag}-${i}`,
                  scac: 'TEST',
                },
              },
            }),
          });
          if (r.status === 201) created++;
        }
      }),
    );
    const until = Date.now() + 180_000;
    let done = 0;
    for (;;) {
      const r = await api(first.url, key, '/v2/tracking_requests?filter[status]=created&page[size]=1');
      done = Number(r.body.meta?.total ?? 0);
      if (done >= TRACKED || Date.now() > until) break;
      await sleep(100);
    }
    trackedAt = s.now();
    ctx.log(
      `  ready in ${(readyAt / 1000).toFixed(1)} s; ${created} created, ${done} tracked ${((trackedAt - readyAt) / 1000).toFixed(1)} s later`,
    );
    if (done < TRACKED) throw new Error(`only ${done} of ${TRACKED} tracked after 180 s`);
    const list = await api(first.url, key, '/v2/shipments?page[size]=100');
    const ids = (list.body.data as { id: string }[]).map((x) => x.id);
    writeFileSync(idsFile, JSON.stringify(ids));
    shipped = await reads(ctx, first.url, key, idsFile, first.group.pgid);
    loadEnd = s.now();
    await sleep(ctx.cfg.smallHostIdleS * 1000);
    idleEnd = s.now();
  } finally {
    await first.group.stop();
    s.stop();
  }
  const peak = s.peak();
  const startPeak = s.peak(0, readyAt + 2000);
  const trackPeak = s.peak(readyAt, trackedAt);
  const loadPeak = s.peak(trackedAt, loadEnd);
  const idle = s.mean(idleEnd - 5000, idleEnd);
  const idleEndSample = s.peak(idleEnd - 200, idleEnd);
  ctx.log(
    `  peak ${mb(peak?.total)} MB (${split(peak?.byComm ?? {})}); start ${mb(startPeak?.total)}, tracking ${mb(trackPeak?.total)}, reads ${mb(loadPeak?.total)}; idle ${mb(idle)} MB; reads ${Math.round(shipped?.rps ?? 0)} req/s`,
  );

  // Cache off: the same data directory started again with RESPONSE_CACHE_MB=0.
  const second = await start(v, { ...env, RESPONSE_CACHE_MB: '0' });
  let off: Awaited<ReturnType<typeof reads>> | null = null;
  try {
    off = await reads(ctx, second.url, key, idsFile, second.group.pgid);
  } finally {
    await second.group.stop();
    second.sampler.stop();
  }
  const offPeak = second.sampler.peak();
  ctx.log(`  cache off: ${Math.round(off?.rps ?? 0)} req/s, peak ${mb(offPeak?.total)} MB`);

  const peakMb = mb(peak?.total);
  const idleMb = mb(idle);
  out.push(
    {
      id: `${id}_peak`,
      name: `${name}: peak RSS, all processes (start, ${TRACKED} tracked, reads)`,
      value: peakMb,
      unit: 'MB',
      goal: goals ? `≤ ${GOALS.peakMb} MB` : '',
      goalMet: goals ? peakMb !== null && peakMb <= GOALS.peakMb : null,
      notes: `at ${((peak?.t ?? 0) / 1000).toFixed(1)} s: ${split(peak?.byComm ?? {})}; start ${mb(startPeak?.total)} MB (ready in ${(readyAt / 1000).toFixed(1)} s), tracking ${mb(trackPeak?.total)} MB (${((trackedAt - readyAt) / 1000).toFixed(1)} s), reads ${mb(loadPeak?.total)} MB; cache-off process ${mb(offPeak?.total)} MB`,
      details: { peak, startPeak, trackPeak, loadPeak, offPeak, readyAt, trackedAt },
    },
    {
      id: `${id}_idle`,
      name: `${name}: idle RSS, all processes (last 5 s of ${ctx.cfg.smallHostIdleS} s after the load)`,
      value: idleMb,
      unit: 'MB',
      goal: goals ? `≤ ${GOALS.idleMb} MB` : '',
      goalMet: goals ? idleMb !== null && idleMb <= GOALS.idleMb : null,
      notes: `at the end: ${split(idleEndSample?.byComm ?? {})}`,
    },
  );
  for (const [which, r, min] of [
    ['cache as shipped', shipped, GOALS.shipped],
    ['cache off (RESPONSE_CACHE_MB=0)', off, GOALS.cacheOff],
  ] as const) {
    const goal = goals ? { minRatio: min } : null;
    out.push({
      id: `${id}_reads_${which.startsWith('cache off') ? 'off' : 'shipped'}`,
      name: `${name}: GET /v2/shipments/{random id of ${TRACKED}}?include=containers, ${which}`,
      value: r?.rps ?? null,
      unit: 'req/s',
      ratio: null,
      p50Ms: r?.latency.p50 ?? null,
      p99Ms: r?.latency.p99 ?? null,
      errors: r ? r.errors + r.timeouts + r.non2xx : null,
      goal: goals ? goalText(goal ?? undefined) : '',
      goalMet: goals ? false : null,
      notes: r
        ? `CPU per request: service ${r.cpu.serverUs} µs, PostgreSQL ${r.cpu.postgresUs} µs, whole machine ${r.cpu.machineUs} µs`
        : undefined,
      details: { ...r, goalSpec: goal },
    });
  }
  return out;
}

export async function smallHostScenarios(ctx: Ctx): Promise<void> {
  const dir = join(ctx.tmp, 'small-host');
  mkdirSync(dir, { recursive: true });
  const before = await bare(ctx);
  const measured: ScenarioResult[] = [];
  for (const engine of ctx.cfg.smallHostEngines) {
    for (const [i, v] of variants(ctx.cfg.smallHostFlags).entries()) {
      const runDir = join(dir, `${engine}-${i}`);
      mkdirSync(runDir, { recursive: true });
      const pg = engine === 'postgres' ? await createBenchDatabase(ctx.cfg.adminUrl) : null;
      try {
        const env: Record<string, string> = pg
          ? { DATABASE_URL: pg.url }
          : { DATA_DIR: join(runDir, 'data') };
        measured.push(...(await one(ctx, engine, v, env, runDir)));
      } catch (err) {
        ctx.log(`small host ${engine} ${v.label} failed: ${(err as Error).message}`);
        measured.push({
          id: `small_host_${engine}_${i}`,
          name: `Small host, ${engine}, ${v.label}`,
          value: null,
          unit: '',
          goal: 'ran',
          goalMet: false,
          notes: (err as Error).message.slice(0, 500),
        });
      } finally {
        await pg?.drop().catch((err) => ctx.log(`could not drop ${pg.name}: ${(err as Error).message}`));
      }
    }
  }
  const after = await bare(ctx);
  const base = (before + after) / 2;
  for (const r of measured)
    if (r.unit === 'req/s') r.details = { ...(r.details as object), baselineRps: base };
  ctx.results.push(
    {
      id: 'small_host_bare',
      name: 'Small host baseline: bare node:http (mean of start and end)',
      value: base,
      unit: 'req/s',
      goal: 'reference',
      goalMet: null,
      notes: `${Math.round(before)} then ${Math.round(after)} req/s`,
    },
    ...measured,
  );
  ctx.notes.push(
    `Small-host ratios divide by the mean of two bare node:http runs (${Math.round(base).toLocaleString('en')} req/s), loaded by the same autocannon child.`,
  );
}
