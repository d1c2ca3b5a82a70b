import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createAccount } from '../../src/accounts/service.ts';
import { seed } from '../../src/cli/seed.ts';
import { openPglite } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { type Api, type Ctx, newAccount, startApi } from '../lib/context.ts';
import { peakRssMb, resetPeakRss, settledRss, sleep } from '../lib/proc.ts';
import type { ScenarioResult } from '../lib/report.ts';

// `--only export`: a whole account's shipments as CSV (`GET /v2/shipments` with `Accept: text/csv`,
// src/http/csv.ts), 100,000 seeded shipments on PostgreSQL and a smaller account on embedded
// PGlite (it seeds ~10x slower). The API runs as its own process with the heap limit of
// `npm start` (--max-old-space-size=160, BENCH_EXPORT_HEAP_MB to change it): an export that held
// the list in memory would die of it. Reported: rows/s, time to first byte, and the API's peak
// resident set during the export against its resident set just before (the baseline, same run).

interface Export {
  rows: number;
  bytes: number;
  seconds: number;
  firstByteMs: number;
  status: number;
}

/**
 * Reads the export as a client does, counting records as they arrive (a newline outside quotes
 * ends one; CSV doubles a quote inside a quoted cell, which toggles twice) without keeping them.
 */
async function readExport(url: string, key: string): Promise<Export> {
  const started = performance.now();
  const res = await fetch(`${url}/v2/shipments`, {
    headers: { authorization: `Token ${key}`, accept: 'text/csv' },
  });
  let firstByteMs = -1;
  let lines = 0;
  let bytes = 0;
  let quoted = false;
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    if (firstByteMs < 0) firstByteMs = performance.now() - started;
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i];
      if (b === 0x22) quoted = !quoted;
      else if (b === 0x0a && !quoted) lines++;
    }
  }
  return {
    rows: Math.max(0, lines - 1),
    bytes,
    seconds: (performance.now() - started) / 1000,
    firstByteMs,
    status: res.status,
  };
}

/** VmRSS of a live process in MB, sampled while the export runs (the peak when clear_refs is refused). */
function rssNow(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

async function measure(
  ctx: Ctx,
  engine: 'postgres' | 'pglite',
  api: Api,
  key: string,
  shipments: number,
  heapMb: number,
): Promise<void> {
  const pid = api.proc.pid;
  // A first small read so start-up (module loading, the first query plans) is not in the baseline.
  const warm = await fetch(`${api.url}/v2/shipments?page[size]=1`, {
    headers: { authorization: `Token ${key}` },
  });
  await warm.arrayBuffer();
  await settledRss(pid);
  const before = rssNow(pid);
  const peakKnown = resetPeakRss(pid);
  let sampled = before ?? 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      sampled = Math.max(sampled, rssNow(pid) ?? 0);
      await sleep(100);
    }
  })();
  ctx.log(
    `export [${engine}]: reading ${shipments.toLocaleString('en')} shipments as CSV (RSS before ${before} MB)`,
  );
  let run: Export | null = null;
  let error: string | undefined;
  try {
    run = await readExport(api.url, key);
  } catch (err) {
    error = (err as Error).message;
  }
  sampling = false;
  await sampler;
  const peak = peakKnown ? (peakRssMb(pid) ?? sampled) : sampled;
  const alive = api.proc.child.exitCode === null && api.proc.child.signalCode === null;
  const complete = run !== null && run.status === 200 && run.rows === shipments;
  if (run === null || !complete)
    error ??= `status ${run?.status}, ${run?.rows} rows of ${shipments}; api ${alive ? 'alive' : 'exited'}: ${api.proc.output().slice(-500)}`;
  const id = `export_${engine}`;
  const name = `CSV export: GET /v2/shipments, Accept: text/csv (${shipments.toLocaleString('en')} shipments, ${engine === 'postgres' ? 'PostgreSQL' : 'embedded PGlite'})`;
  const limitNote = `API heap limit --max-old-space-size=${heapMb}`;
  const results: ScenarioResult[] = [
    {
      id: `${id}_rows`,
      name,
      value: run && complete ? Math.round(run.rows / run.seconds) : null,
      unit: 'rows/s',
      goal: 'every row, the API alive',
      goalMet: complete && alive,
      notes: run
        ? `${run.rows.toLocaleString('en')} rows, ${(run.bytes / 1e6).toFixed(0)} MB in ${run.seconds.toFixed(1)} s; ${limitNote}${error ? `; ${error}` : ''}`
        : error,
      details: run,
    },
    {
      id: `${id}_first_byte`,
      name: `${name}: time to first byte`,
      value: run ? Math.round(run.firstByteMs) : null,
      unit: 'ms',
      goal: '',
      goalMet: null,
    },
    {
      id: `${id}_rss`,
      name: `${name}: API peak RSS during the export, against before it`,
      value: peak,
      unit: 'MB',
      goal: `≤ before + 100 MB`,
      goalMet: before !== null && peak !== null && peak <= before + 100 && complete,
      notes: `RSS before the export ${before} MB (same process, same run), peak ${peak} MB (+${peak !== null && before !== null ? peak - before : '?'} MB); ${peakKnown ? 'VmHWM after clear_refs' : 'VmRSS sampled every 100 ms'}; ${limitNote}`,
      details: { before, peak },
    },
  ];
  ctx.results.push(...results);
  for (const r of results) ctx.log(`  ${r.name}: ${r.value} ${r.unit}${r.notes ? ` (${r.notes})` : ''}`);
}

export async function exportScenario(ctx: Ctx): Promise<void> {
  const heapMb = ctx.cfg.exportHeapMb;
  const heap = [`--max-old-space-size=${heapMb}`];

  // PostgreSQL: the run's database.
  const { accountId, key } = await newAccount(ctx.db, 'bench-export');
  ctx.log(`export: seeding ${ctx.cfg.exportShipments.toLocaleString('en')} shipments x 3 containers`);
  const seeded = await seed(ctx.db, {
    accountId,
    shipments: ctx.cfg.exportShipments,
    containersPerShipment: 3,
    eventsPerContainer: 0,
    refresh: false,
  });
  ctx.notes.push(
    `Export account: ${seeded.shipments.toLocaleString('en')} shipments x 3 containers seeded on PostgreSQL in ${(seeded.elapsedMs / 1000).toFixed(0)} s.`,
  );
  const api = await startApi(ctx, { DATABASE_URL: ctx.bench.url }, heap);
  try {
    await measure(ctx, 'postgres', api, key, seeded.shipments, heapMb);
  } finally {
    await api.proc.stop();
  }

  // Embedded PGlite: its own data directory, seeded before the API opens it.
  const dataDir = join(ctx.tmp, 'pglite-export');
  const database = await openPglite(dataDir);
  let pgliteKey: string;
  let pgliteShipments: number;
  try {
    await migrate(database);
    const { account, apiKey } = await createAccount(database.db, 'bench-export-pglite');
    pgliteKey = apiKey;
    ctx.log(`export: seeding ${ctx.cfg.exportPgliteShipments.toLocaleString('en')} shipments on PGlite`);
    const r = await seed(database.db, {
      accountId: account.id,
      shipments: ctx.cfg.exportPgliteShipments,
      containersPerShipment: 3,
      eventsPerContainer: 0,
      refresh: false,
    });
    pgliteShipments = r.shipments;
    ctx.notes.push(
      `Export account on PGlite: ${r.shipments.toLocaleString('en')} shipments x 3 containers seeded in ${(r.elapsedMs / 1000).toFixed(0)} s.`,
    );
  } finally {
    await database.close();
  }
  const lite = await startApi(ctx, { DATA_DIR: dataDir, DATABASE_URL: '' }, heap);
  try {
    await measure(ctx, 'pglite', lite, pgliteKey, pgliteShipments, heapMb);
  } finally {
    await lite.proc.stop();
  }
}
