import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

// CPU time spent by processes over a scenario (Linux /proc), to say where a request's cost goes:
// the server under test, PostgreSQL (every `postgres` process) and the load generator.

const TICK_MS = 10; // USER_HZ is 100 on Linux

function cpuMs(pid: number | string): { comm: string; ms: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line (11 and 12 after the command).
    return { comm, ms: (Number(fields[11]) + Number(fields[12])) * TICK_MS };
  } catch {
    return null;
  }
}

export interface CpuSample {
  server: number;
  /** Per postgres process: backends come and go, so deltas are taken per pid. */
  postgres: Map<string, number>;
  total: number;
  /** CPU time the hypervisor gave to other guests while this machine's were ready to run. */
  steal: number;
  at: number;
}

/** CPU milliseconds so far of the server (one pid or several), of all postgres processes, and of the whole machine. */
export function sampleCpu(serverPid: number | number[]): CpuSample {
  const postgres = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const c = cpuMs(entry);
    if (c?.comm === 'postgres') postgres.set(entry, c.ms);
  }
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.split(/\s+/).slice(1).map(Number);
  // user, nice, system, irq, softirq: busy time of every CPU (steal, other guests' time, apart).
  const busy = (line[0]! + line[1]! + line[2]! + line[5]! + line[6]!) * TICK_MS;
  const pids = Array.isArray(serverPid) ? serverPid : [serverPid];
  return {
    server: pids.reduce((sum, pid) => sum + (cpuMs(pid)?.ms ?? 0), 0),
    postgres,
    total: busy,
    steal: line[7]! * TICK_MS,
    at: performance.now(),
  };
}

/**
 * The share of the machine's CPU time taken by other guests of the host between two samples
 * (steal): a run during which the host was busy measures the host, not the service.
 */
export function stealShare(a: CpuSample, b: CpuSample): number {
  const capacity = (b.at - a.at) * cpus().length;
  return capacity > 0 ? (b.steal - a.steal) / capacity : 0;
}

/** CPU microseconds per request between two samples. */
export function perRequest(a: CpuSample, b: CpuSample, requests: number) {
  const us = (x: number) => Math.round(((x * 1000) / Math.max(1, requests)) * 10) / 10;
  let postgres = 0;
  for (const [pid, ms] of b.postgres) postgres += ms - (a.postgres.get(pid) ?? 0);
  return {
    serverUs: us(b.server - a.server),
    postgresUs: us(postgres),
    machineUs: us(b.total - a.total),
  };
}
