import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ROOT } from './proc.ts';

// A command started as a user starts it (`npm start`), in a process group of its own, so that
// everything it starts (npm, the shell npm runs the script with, node, anything node spawns) is
// measured together and stopped together.

export interface Group {
  pgid: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM to the whole group, SIGKILL to it after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs `command args` from the repository root in a new process group (and session), with exactly
 * `env` as its environment: the bench's own (npm_* of `npm run bench`, NODE_OPTIONS, DATABASE_URL)
 * does not leak into what a new user would start.
 */
export function startGroup(command: string, args: string[], env: Record<string, string>): Group {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const pgid = child.pid!;
  const alive = () => groupPids(pgid).length > 0;
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-pgid, s);
    } catch {
      // the group is gone
    }
  };
  return {
    pgid,
    child,
    output: () => out,
    exited,
    async waitFor(re, timeoutMs = 60_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const m = out.match(re);
        if (m) return m;
        if (child.exitCode !== null) throw new Error(`${command} exited before ${re}:\n${out.slice(-3000)}`);
        if (Date.now() > until)
          throw new Error(`${command}: timed out waiting for ${re}:\n${out.slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop(graceMs = 15_000) {
      signal('SIGTERM');
      const until = Date.now() + graceMs;
      while (alive() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      if (alive()) signal('SIGKILL');
      while (alive()) await new Promise((r) => setTimeout(r, 50));
    },
  };
}

/** The live pids whose process group is `pgid` (field 5 of /proc/<pid>/stat). */
export function groupPids(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command: state, ppid, pgrp.
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') pids.push(Number(name));
    } catch {
      // exited between the listing and the read
    }
  }
  return pids;
}

function rssKb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export interface RssSample {
  /** ms since the sampler started */
  t: number;
  /** MB, all processes of the group together */
  total: number;
  /** MB per command name (npm, sh, node, …) */
  byComm: Record<string, number>;
}

/**
 * Samples the resident set of every process of the group every `everyMs` (VmRSS, summed). A
 * process's own peak (VmHWM) would miss none of its peaks, but a sum of peaks reached at different
 * times overstates the group's; at 50 ms a peak of PGlite's start (~0.5 s) is seen many times.
 */
export function sampleGroup(pgid: number, everyMs = 50) {
  const samples: RssSample[] = [];
  const t0 = performance.now();
  const comms = new Map<number, string>();
  const take = () => {
    let total = 0;
    const byComm: Record<string, number> = {};
    for (const pid of groupPids(pgid)) {
      let comm = comms.get(pid);
      if (!comm) {
        try {
          comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
        } catch {
          continue;
        }
        comms.set(pid, comm);
      }
      const mb = rssKb(pid) / 1024;
      total += mb;
      byComm[comm] = (byComm[comm] ?? 0) + mb;
    }
    samples.push({ t: performance.now() - t0, total, byComm });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    now: () => performance.now() - t0,
    stop() {
      clearInterval(timer);
    },
    /** The largest sum in [from, to) (ms since start), with its split by command. */
    peak(from = 0, to = Number.POSITIVE_INFINITY): RssSample | null {
      let best: RssSample | null = null;
      for (const s of samples) if (s.t >= from && s.t < to && (!best || s.total > best.total)) best = s;
      return best;
    },
    /** The mean sum over [from, to). */
    mean(from: number, to = Number.POSITIVE_INFINITY): number | null {
      const xs = samples.filter((s) => s.t >= from && s.t < to);
      return xs.length ? xs.reduce((a, s) => a + s.total, 0) / xs.length : null;
    },
  };
}
