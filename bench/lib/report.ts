import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import type { BenchConfig } from './config.ts';
import { START_FLAGS } from './proc.ts';

// Results of one run: kept in memory as scenarios finish, written as bench/results/latest.json and
// a Markdown table bench/results/latest.md.

export interface ScenarioResult {
  id: string;
  name: string;
  /** The figure and its unit: req/s, refreshes/s, deliveries/s, ms, MB, ratio. */
  value: number | null;
  unit: string;
  /** Scenario req/s divided by the baseline's req/s, for HTTP scenarios. */
  ratio?: number | null;
  p50Ms?: number | null;
  p99Ms?: number | null;
  errors?: number | null;
  goal: string;
  /** null: no goal (reported only). */
  goalMet: boolean | null;
  notes?: string;
  details?: unknown;
}

export function failed(id: string, name: string, message: string): ScenarioResult {
  return { id, name, value: null, unit: '', goal: 'ran', goalMet: false, notes: message.slice(0, 500) };
}

export interface Machine {
  date: string;
  /** The code measured: commit, plus "with local changes" when the tree differs from it. */
  code: string;
  cpu: string;
  cpus: number;
  memoryGb: number;
  node: string;
  postgres: string;
}

export function machineInfo(postgres: string): Machine {
  const list = cpus();
  return {
    date: new Date().toISOString(),
    code: codeVersion(),
    cpu: list[0]?.model.trim() ?? 'unknown',
    cpus: list.length,
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    postgres,
  };
}

function codeVersion(): string {
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: new URL('../..', import.meta.url), encoding: 'utf8' }).trim();
  try {
    return `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src', 'migrations') ? ' with local changes' : ''}`;
  } catch {
    return 'unknown';
  }
}

const fmt = (n: number | null | undefined, digits = 0) =>
  n === null || n === undefined || !Number.isFinite(n)
    ? '–'
    : n.toLocaleString('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function markdown(
  machine: Machine,
  cfg: BenchConfig,
  results: ScenarioResult[],
  notes: string[],
): string {
  const lines = [
    `# Benchmark results (${cfg.large ? 'large data set' : 'default'} mode)`,
    '',
    `- Date: ${machine.date}; code: ${machine.code}`,
    `- Machine: ${machine.cpus} × ${machine.cpu}, ${machine.memoryGb} GB memory`,
    `- Node.js ${machine.node}, ${machine.postgres} on 127.0.0.1`,
    `- ${cfg.durationS} s per measurement after ${cfg.warmupS} s of warm-up, ${cfg.connections} connections, autocannon in its own process; servers started as \`node ${START_FLAGS.join(' ')} src/main.ts --role api|worker\` (the flags of npm start; the baseline gets them too) with LOG_LEVEL=warn (request logging off)`,
    '',
    '| Scenario | Result | Ratio to baseline | p50 ms | p99 ms | Errors | Goal | Goal met |',
    '|---|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const r of results) {
    const value = r.value === null ? 'failed' : `${fmt(r.value, r.unit === 'ratio' ? 2 : 0)} ${r.unit}`;
    const met = r.goalMet === null ? '–' : r.goalMet ? 'yes' : '**no**';
    lines.push(
      `| ${r.name} | ${value} | ${fmt(r.ratio, 3)} | ${fmt(r.p50Ms, 1)} | ${fmt(r.p99Ms, 1)} | ${fmt(r.errors)} | ${r.goal || '–'} | ${met} |`,
    );
  }
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  const withNotes = results.filter((r) => r.notes);
  if (withNotes.length)
    lines.push('', '## Per scenario', '', ...withNotes.map((r) => `- ${r.name}: ${r.notes}`));
  return `${lines.join('\n')}\n`;
}

export function writeResults(
  machine: Machine,
  cfg: BenchConfig,
  results: ScenarioResult[],
  notes: string[],
  extra: Record<string, unknown>,
): string {
  const dir = new URL('../results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const { only, adminUrl, ...settings } = cfg;
  // The admin URL without credentials.
  const url = new URL(adminUrl);
  url.username = '';
  url.password = '';
  const json = {
    machine,
    settings: { ...settings, adminUrl: url.toString(), only: [...only] },
    results,
    notes,
    ...extra,
  };
  // A traffic-, throughput-, export- or small-host-only run (`--only traffic|…`) keeps the full run's files.
  const base =
    only.size === 1 && only.has('traffic')
      ? `latest-traffic${cfg.large ? '-large' : ''}`
      : only.size === 1 && only.has('throughput')
        ? 'latest-throughput'
        : only.size === 1 && only.has('export')
          ? 'latest-export'
          : only.size === 1 && only.has('small-host')
            ? 'latest-small-host'
            : 'latest';
  writeFileSync(new URL(`${base}.json`, dir), `${JSON.stringify(json, null, 2)}\n`);
  const md = markdown(machine, cfg, results, notes);
  writeFileSync(new URL(`${base}.md`, dir), md);
  return md;
}
