import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

const ROOT = new URL('../../', import.meta.url).pathname;

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

export interface Spawned {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output matches, rejects after the time-out or if the process exits. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Starts `node args`. With `group`, as a supervisor's wrapper runs it: under a shell that waits
 * for it, in a process group of its own, and kill() signals the whole group (the shell, node and
 * its children); `exited` is then the shell's exit, while node may still be listed in /proc.
 */
export function spawnNode(
  args: string[],
  env: Record<string, string | undefined>,
  opts: { group?: boolean } = {},
): Spawned {
  const child = opts.group
    ? // `; exit $?` keeps the shell from exec'ing node: it stays node's parent, as `npm` does.
      spawn('sh', ['-c', '"$0" "$@"; exit $?', process.execPath, ...args], {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: 'pipe',
        detached: true,
      })
    : spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'pipe' });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    kill: (signal = 'SIGTERM') => {
      if (!opts.group) child.kill(signal);
      else if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid!, signal);
        } catch {}
      }
    },
    // A first start initialises PGlite, which takes 20 s and more on a loaded 2-core machine.
    waitFor(re, timeoutMs = 60_000) {
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
          reject(new Error(`timed out waiting for ${re}; output:\n${out}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`process exited before ${re}; output:\n${out}`));
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
  };
}

/** Runs a command to completion; returns its exit code and output. */
export async function runNode(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, stdout, stderr };
}
