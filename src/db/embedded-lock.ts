import {
  closeSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';

// One process owns an embedded data directory (PGlite is a single-process database: two
// processes writing the same files corrupt them). Ownership is a lock file created with O_EXCL
// in DATA_DIR, holding the owner's pid, its start time (so a reused pid is not mistaken for the
// owner, e.g. pid 1 in a restarted container) and where it serves the database. A lock whose
// process is gone (SIGKILL, power loss) is stale and is broken by the next opener. A process killed
// a moment ago may still be listed in /proc as a zombie (state Z) or as exiting (X): after SIGKILL
// of a process holding a large WebAssembly memory that lasts about 2 s, until its parent reaps it.
// It runs no more code and holds no file, so it counts as gone, and a supervisor restarting at
// once is not refused.

export const LOCK_FILE = 'tracker.lock';
const BREAK_FILE = 'tracker.lock.break';

export interface LockInfo {
  pid: number;
  /** Kernel start time of `pid` (Linux /proc/<pid>/stat field 22); null where unknown. */
  startTime: string | null;
  role: 'server' | 'cli';
  /** Where the owner serves PostgreSQL's protocol; null while starting or for a CLI owner. */
  socket: { host: string; port: number } | null;
  since: string;
}

export type LockResult =
  | { acquired: true; release: () => void; update: (info: LockInfo) => void }
  | { acquired: false; owner: LockInfo };

/** Fields 3 onwards of /proc/<pid>/stat (state first); null where unknown (no /proc, no process). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

export function processStartTime(pid: number): string | null {
  return statFields(pid)?.[19] ?? null;
}

/** The kernel's one-letter state of `pid` (R, S, D, Z, X…); null where unknown. */
export function processState(pid: number): string | null {
  return statFields(pid)?.[0] ?? null;
}

/** Data directories whose lock this process holds: its own pid in their lock file is itself. */
const heldHere = new Set<string>();

/**
 * Whether the process that wrote `dataDir`'s lock `info` still runs (not merely a process with
 * the same pid, nor a zombie). This process's own pid is alive where it holds the lock, and stale
 * elsewhere (a previous process with the same pid, e.g. pid 1 in a restarted container).
 */
export function ownerAlive(info: LockInfo, dataDir: string): boolean {
  if (info.pid === process.pid) return heldHere.has(resolve(dataDir));
  try {
    process.kill(info.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = processState(info.pid);
  if (state === 'Z' || state === 'X' || state === 'x') return false;
  const now = processStartTime(info.pid);
  return info.startTime === null || now === null || now === info.startTime;
}

export function readLock(dataDir: string): LockInfo | null {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockInfo;
    return typeof info.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

export function myLockInfo(role: LockInfo['role']): LockInfo {
  return {
    pid: process.pid,
    startTime: processStartTime(process.pid),
    role,
    socket: null,
    since: new Date().toISOString(),
  };
}

function createExclusive(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Takes the lock, breaking a stale one. Breaking is itself guarded by an O_EXCL file so that two
 * openers finding the same stale lock cannot both remove it (the second would remove the first's
 * fresh lock); a break file left by a process killed in that instant is stale after 10 s.
 */
export function tryLock(dataDir: string, role: LockInfo['role']): LockResult {
  const path = join(dataDir, LOCK_FILE);
  const mine = myLockInfo(role);
  for (let attempt = 0; attempt < 20; attempt++) {
    if (createExclusive(path, JSON.stringify(mine))) return held(dataDir, mine);
    const owner = readLock(dataDir);
    // An unreadable lock is being written right now (or was cut short by a crash): look again.
    if (owner && ownerAlive(owner, dataDir)) return { acquired: false, owner };
    if (!owner && attempt < 5) {
      sleepSync(20);
      continue;
    }
    breakStale(dataDir, owner);
  }
  throw new Error(`Could not take the lock ${path}; remove it if no process uses ${dataDir}`);
}

function breakStale(dataDir: string, seen: LockInfo | null): void {
  const breakPath = join(dataDir, BREAK_FILE);
  if (!createExclusive(breakPath, String(process.pid))) {
    const age = lockAgeMs(breakPath);
    if (age !== null && age > 10_000) unlinkQuiet(breakPath);
    sleepSync(20);
    return;
  }
  try {
    const now = readLock(dataDir);
    // Remove only the lock we judged stale, not one another opener took meanwhile.
    if (JSON.stringify(now) === JSON.stringify(seen)) unlinkQuiet(join(dataDir, LOCK_FILE));
  } finally {
    unlinkQuiet(breakPath);
  }
}

function held(dataDir: string, mine: LockInfo): LockResult & { acquired: true } {
  const path = join(dataDir, LOCK_FILE);
  let released = false;
  heldHere.add(resolve(dataDir));
  // A process that exits without closing (process.exit in a CLI command) leaves no lock behind.
  const onExit = () => result.release();
  process.once('exit', onExit);
  const result: LockResult & { acquired: true } = {
    acquired: true,
    update(info) {
      // Write aside and rename, so a reader never sees a half-written lock.
      const tmp = `${path}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(info));
      renameSync(tmp, path);
    },
    release() {
      if (released) return;
      released = true;
      heldHere.delete(resolve(dataDir));
      process.off('exit', onExit);
      const now = readLock(dataDir);
      if (now?.pid === mine.pid) unlinkQuiet(path);
    },
  };
  return result;
}

function lockAgeMs(path: string): number | null {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function unlinkQuiet(path: string): void {
  try {
    unlinkSync(path);
  } catch {}
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
