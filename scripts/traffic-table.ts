import { readFileSync, writeFileSync } from 'node:fs';

// Writes the traffic-like reads' figures of docs/benchmarks.md ("Current figures") from the last traffic
// run (bench/results/latest-traffic.json): `node scripts/traffic-table.ts` after
// `npm run bench -- --only traffic`. The table sits between the line that starts "Last run:" in that
// section and the blank line after it.

interface Result {
  id: string;
  value: number | null;
  p50Ms?: number;
  p99Ms?: number;
  errors?: number;
  notes?: string;
  goal: string;
  details?: {
    baselineRps?: number;
    steal?: number;
    cpuPerRequest?: { serverUs: number; postgresUs: number };
    peakRssMb?: number | null;
  };
}

const root = new URL('../', import.meta.url);
const run = JSON.parse(readFileSync(new URL('bench/results/latest-traffic.json', root), 'utf8')) as {
  machine: { date: string; code: string; cpu: string; cpus: number };
  results: Result[];
};
const byId = new Map(run.results.map((r) => [r.id, r]));
const first = byId.get('traffic_baseline');
const last = byId.get('traffic_baseline_end');
const base = first?.details?.baselineRps ?? 1;

const ROWS: Array<[string, string, string, string]> = [
  ['shipment', 'Shipment with containers', 'PostgreSQL', 'ratio ≥ 0.06, p99 ≤ 40 ms'],
  ['events', 'Container transport events', 'PostgreSQL', 'ratio ≥ 0.06'],
  ['list', 'Shipment list, random page of 30 with containers', 'PostgreSQL', 'ratio ≥ 0.004'],
  ['mixed', 'Mixed: 90 % shipment reads, 10 % tracking-request creates', 'PostgreSQL', 'ratio ≥ 0.04, no errors'],
  [
    'mixed_sandbox',
    'Diagnostic: mixed, the creates on the sandbox line (a journey stored per create)',
    'PostgreSQL',
    'reported',
  ],
  ['shipment', 'PGlite: shipment with containers', 'PGlite', 'reported'],
  ['events', 'PGlite: container transport events', 'PGlite', 'reported'],
  ['list', 'PGlite: shipment list page', 'PGlite', 'reported'],
];

const n = (v: number | undefined | null, digits = 0) =>
  v == null ? '–' : v.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const lines: string[] = [
  `Last run: ${run.machine.date.slice(0, 10)} (code ${run.machine.code}, ${run.machine.cpus} × ${run.machine.cpu}); load from wrk (2 threads, 50 connections); bare node:http ${n(first?.value)} / ${n(last?.value)} req/s (ratios divide by their mean). PostgreSQL: 10,000 seeded shipments; PGlite: 2,000.`,
  '',
  '| Scenario (random ids) | Cache | req/s | Ratio | p50 ms | p99 ms | Errors | API µs/req | PostgreSQL µs/req | Peak RSS MB | Host steal | Goal |',
  '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
];
for (const [id, label, engine, goal] of ROWS) {
  for (const [mode, key] of [
    ['off', 'cache_off'],
    ['as shipped', 'as_shipped'],
  ] as const) {
    const r = byId.get(`traffic_${engine}_${key}_${id}`);
    if (!r) continue;
    const d = r.details ?? {};
    const steal = d.steal == null ? '–' : `${Math.round(d.steal * 100)} %`;
    lines.push(
      `| ${label} | ${mode} | ${n(r.value)} | ${r.value == null ? '–' : (r.value / base).toFixed(4)} | ${n(r.p50Ms)} | ${n(r.p99Ms)} | ${n(r.errors)} | ${n(d.cpuPerRequest?.serverUs)} | ${n(d.cpuPerRequest?.postgresUs)} | ${n(d.peakRssMb)} | ${steal} | ${goal} |`,
    );
  }
}

const docUrl = new URL('docs/benchmarks.md', root);
const doc = readFileSync(docUrl, 'utf8');
const section = doc.indexOf('### Traffic-like reads');
const start = doc.indexOf('\nLast run:', section) + 1;
const end = doc.indexOf('\n\n', doc.indexOf('\n|', start)) + 1;
if (section < 0 || start <= 0 || end <= start) {
  throw new Error('docs/benchmarks.md: the traffic table was not found');
}
writeFileSync(docUrl, `${doc.slice(0, start)}${lines.join('\n')}\n${doc.slice(end)}`);
process.stdout.write(`docs/benchmarks.md: ${lines.length - 4} rows from ${run.machine.date} (${run.machine.code})\n`);
