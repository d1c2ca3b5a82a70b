import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReadOptions, ReadResult } from './read.ts';
import { UnreadableFile } from './unreadable.ts';

// Documents are read in a child process of their own (child.ts), not in the service's process:
// `npm start` runs node with `--liftoff-only`, which keeps V8's optimising WebAssembly compiler
// away from PGlite (about 500 MB less at peak) but would cost OCR (tesseract.js) 40 % more CPU per
// scan, and the flag applies to every WebAssembly module of a process. The child runs without it.
//
// One child per process, started by the first read and reused; it ends after `idleMs` without a
// request, so a host at rest pays nothing for it, and at worker shutdown (stopReaderProcess). A
// child that exits, or does not answer within `timeoutMs`, fails the requests it had (they are
// retried like any read error) and the next request starts a fresh one. Files go over IPC by
// structured clone (serialization 'advanced'): about 0.4 s for a 25 MB file, the default upload limit.

export interface ReaderLimits {
  idleMs: number;
  timeoutMs: number;
}

type Ask =
  | { op: 'read'; bytes: Uint8Array; contentType: string; ocr: boolean }
  | { op: 'rotate'; bytes: Uint8Array; degrees: 90 | 180 | 270 };

export type ReaderRequest = Ask & { id: number };

export type ReaderAnswer =
  | { id: number; ok: true; value: ReadResult | Uint8Array }
  | { id: number; ok: false; unreadable: boolean; message: string };

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

interface Reader {
  proc: ChildProcess;
  pending: Map<number, Pending>;
  /** The idle time of the latest request's configuration. */
  idleMs: number;
  idle?: NodeJS.Timeout;
}

const ENTRY = fileURLToPath(new URL('./child.ts', import.meta.url));
// How long a stopped child may take to end (OCR worker terminated) before it is killed.
const STOP_GRACE_MS = 5_000;

/**
 * The child's node flags: the parent's heap limits (an operator's memory settings hold for the
 * reader too) and nothing else — not `--liftoff-only` (the point of the child), nor the
 * inspector's, test runner's or watch mode's flags, which a second process must not take over.
 */
export function readerExecArgv(parent: readonly string[]): string[] {
  return parent.filter((a) =>
    /^--(max-old-space-size|max-semi-space-size|max-heap-size|no-allocation-site-pretenuring)(=|$)/.test(a),
  );
}

let current: Reader | undefined;
let nextId = 1;

function start(idleMs: number): Reader {
  const proc = fork(ENTRY, [], { execArgv: readerExecArgv(process.execArgv), serialization: 'advanced' });
  const r: Reader = { proc, pending: new Map(), idleMs };
  proc.on('message', (a: ReaderAnswer) => settle(r, a));
  proc.on('exit', (code, signal) =>
    failAll(r, new Error(`document reader exited (${signal ?? `code ${code}`})`)),
  );
  proc.on('error', (err) => discard(r, new Error(`document reader failed: ${err.message}`)));
  return r;
}

/** Takes a reader out of use: later requests start a new one. */
function detach(r: Reader): void {
  if (current === r) current = undefined;
  clearTimeout(r.idle);
}

function failAll(r: Reader, err: Error): void {
  detach(r);
  for (const [id, p] of r.pending) {
    clearTimeout(p.timer);
    r.pending.delete(id);
    p.reject(err);
  }
  holdsProcess(r, false);
}

/** A reader that cannot be trusted any more (no answer, broken channel): its requests fail, it is killed. */
function discard(r: Reader, err: Error): void {
  failAll(r, err);
  r.proc.kill('SIGKILL');
}

// A child at work keeps the service's event loop alive (a read is awaited); an idle one does not.
function holdsProcess(r: Reader, hold: boolean): void {
  if (hold) {
    r.proc.ref();
    r.proc.channel?.ref();
  } else {
    r.proc.unref();
    r.proc.channel?.unref();
  }
}

function settle(r: Reader, a: ReaderAnswer): void {
  const p = r.pending.get(a.id);
  if (!p) return;
  clearTimeout(p.timer);
  r.pending.delete(a.id);
  if (a.ok) p.resolve(a.value);
  else p.reject(a.unreadable ? new UnreadableFile(a.message) : new Error(a.message));
  if (r.pending.size === 0) {
    holdsProcess(r, false);
    if (current === r) r.idle = setTimeout(() => void end(r), r.idleMs).unref();
  }
}

function ask<T>(limits: ReaderLimits, request: Ask): Promise<T> {
  current ??= start(limits.idleMs);
  const r = current;
  r.idleMs = limits.idleMs;
  clearTimeout(r.idle);
  const id = nextId++;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => discard(r, new Error(`document reader gave no answer within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    r.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
    if (r.pending.size === 1) holdsProcess(r, true);
    r.proc.send({ ...request, id }, (err) => {
      if (err) discard(r, new Error(`document reader unreachable: ${err.message}`));
    });
  });
}

/** A stored file to lines of text, read in the reader process. */
export function readInChild(
  limits: ReaderLimits,
  bytes: Buffer,
  contentType: string,
  o: ReadOptions,
): Promise<ReadResult> {
  return ask<ReadResult>(limits, { op: 'read', bytes, contentType, ocr: o.ocr });
}

/** An image turned clockwise, in its own format, by the reader process. */
export async function rotateInChild(
  limits: ReaderLimits,
  bytes: Buffer,
  degrees: 90 | 180 | 270,
): Promise<Buffer> {
  const out = await ask<Uint8Array>(limits, { op: 'rotate', bytes, degrees });
  return Buffer.isBuffer(out) ? out : Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Ends a reader: it closes its OCR worker and exits when its channel closes; killed if it lingers. */
async function end(r: Reader): Promise<void> {
  detach(r);
  const { proc } = r;
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  if (proc.connected) proc.disconnect();
  else proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** Ends the reader process, if one runs (worker shutdown, tests). */
export async function stopReaderProcess(): Promise<void> {
  if (current) await end(current);
}

/** The running reader's pid, if any (tests, benchmarks). */
export function readerPid(): number | undefined {
  return current?.proc.pid;
}
