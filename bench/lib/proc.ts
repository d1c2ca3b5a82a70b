import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

// Child processes of a benchmark run: every process under test, the load generator, the carrier
// simulator and the webhook receiver run as their own `node` process, as users run them.

export const ROOT = new URL('../../', import.meta.url).pathname;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface Proc {
  name: string;
  child: ChildProcess;
  pid: number;
  output(): string;
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  exited: Promise<number | null>;
}

const running = new Set<Proc>();

/**
 * The Node.js flags of `npm start` (package.json): the service runs here as it does there, and the
 * baseline server gets them too, so both are served the same way.
 */
export const START_FLAGS: string[] = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(/\s+/)
  .filter((a) => a.startsWith('--'));

/** Starts `node <args>` from the repository root with the given extra environment. */
export function startNode(name: string, args: string[], env: Record<string, string | undefined> = {}): Proc {
  const served =
    args.includes('src/main.ts') ||
    args.includes('bench/servers/hello.ts') ||
    args.includes('bench/servers/bare.ts');
  const flags = served ? START_FLAGS : [];
  const child = spawn(process.execPath, [...flags, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let exitedYet = false;
  void exited.then(() => {
    exitedYet = true;
  });
  const p: Proc = {
    name,
    child,
    pid: child.pid!,
    output: () => out,
    exited,
    waitFor(re, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(re);
          if (m) {
            cleanup();
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${name}: timed out waiting for ${re}; output:\n${out.slice(-3000)}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`${name} exited before ${re}; output:\n${out.slice(-3000)}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.on('exit', onExit);
        check();
      });
    },
    async stop(graceMs = 10_000) {
      running.delete(p);
      if (exitedYet) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  running.add(p);
  return p;
}

/** Stops every process this run started and has not stopped yet (on failure or Ctrl-C). */
export async function stopAll(): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(3000)));
}

/** Polls an HTTP URL until it answers 2xx. */
export async function waitForHttp(url: string, proc: Proc, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  let exited = false;
  void proc.exited.then(() => {
    exited = true;
  });
  while (Date.now() < until) {
    if (exited) throw new Error(`${proc.name} exited during start-up:\n${proc.output().slice(-3000)}`);
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${proc.name}: ${url} not ready after ${timeoutMs} ms:\n${proc.output().slice(-3000)}`);
}

/** Peak resident set size of a live process so far (VmHWM), in MB; null when unreadable. */
export const peakRssMb = (pid: number): number | null => statusMb(pid, 'VmHWM');

/** The process's resident set now (VmRSS), in MB; null when unreadable. */
const rssMb = (pid: number): number | null => statusMb(pid, 'VmRSS');

function statusMb(pid: number, field: 'VmHWM' | 'VmRSS'): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * Waits (at most `limitMs`) until the process's resident set holds still: two samples 250 ms
 * apart within 2 %. A service that answers /healthz may still be starting: embedded PGlite peaks
 * at ~860 MB while it opens any data directory, an empty one too, and settles near 300-450 MB
 * about a second later; a peak measured from then on would be its start, not its load.
 */
export async function settledRss(pid: number, limitMs = 10_000): Promise<void> {
  const until = Date.now() + limitMs;
  let last = rssMb(pid);
  while (last !== null && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    const now = rssMb(pid);
    if (now === null || Math.abs(now - last) <= last * 0.02) return;
    last = now;
  }
}

/**
 * Starts a new peak for `peakRssMb` (writes 5 to /proc/<pid>/clear_refs, Linux ≥ 4.0), so each
 * scenario reports its own peak; false when the kernel refuses (the peak then spans the process).
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
