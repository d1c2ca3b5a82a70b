import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { claimDataDir, EmbeddedOwnedError } from '../../src/db/embedded.ts';
import {
  LOCK_FILE,
  type LockInfo,
  ownerAlive,
  processStartTime,
  processState,
  readLock,
  tryLock,
} from '../../src/db/embedded-lock.ts';
import { freePort } from '../helpers/process.ts';

// The lock's judgement of who owns a data directory: a live owner is respected, a dead one (or a
// reused pid: same number, other start time) is stale and broken, and release leaves no file.

const lockOf = (pid: number, startTime: string | null, port = 1): LockInfo => ({
  pid,
  startTime,
  role: 'server',
  socket: { host: '127.0.0.1', port },
  since: new Date().toISOString(),
});

const onLinux = processState(process.pid) !== null;

/** A live process (a sleeping child) and its exit. */
async function sleeper() {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
  await new Promise((r) => child.once('spawn', r));
  const exited = new Promise((r) => child.once('exit', r));
  return { pid: child.pid!, kill: () => child.kill('SIGKILL'), exited };
}

describe('embedded lock', () => {
  test('live owner respected; dead pid or reused pid broken; release removes the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trk-lock-'));
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      await new Promise((r) => sleeper.once('spawn', r));
      const pid = sleeper.pid!;
      const path = join(dir, LOCK_FILE);

      writeFileSync(path, JSON.stringify(lockOf(pid, processStartTime(pid))));
      const busy = tryLock(dir, 'cli');
      assert.equal(busy.acquired, false);
      assert.equal(!busy.acquired && busy.owner.pid, pid);
      assert.equal(readLock(dir)?.pid, pid, 'a live owner is left alone');

      if (processStartTime(pid) !== null) {
        // Same pid, other start time: a new process reusing a dead owner's pid.
        writeFileSync(path, JSON.stringify(lockOf(pid, '1')));
        const reused = tryLock(dir, 'cli');
        assert.equal(reused.acquired, true);
        if (reused.acquired) reused.release();
      }

      sleeper.kill('SIGKILL');
      await new Promise((r) => sleeper.once('exit', r));
      writeFileSync(path, JSON.stringify(lockOf(pid, processStartTime(process.pid))));
      const taken = tryLock(dir, 'server');
      assert.equal(taken.acquired, true);
      assert.equal(JSON.parse(readFileSync(path, 'utf8')).pid, process.pid);
      if (taken.acquired) taken.release();
      assert.ok(!existsSync(path));
    } finally {
      sleeper.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a zombie owner (killed, not yet reaped) is gone', { skip: !onLinux && 'needs /proc' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trk-lock-'));
    // `sleep 0.05` is a child of the shell that then becomes `sleep 60`, which never reaps it.
    const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 60'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    try {
      const pid = Number(await new Promise<string>((r) => parent.stdout.once('data', (d) => r(String(d)))));
      const start = processStartTime(pid);
      while (processState(pid) !== 'Z') await new Promise((r) => setTimeout(r, 10));
      process.kill(pid, 0); // still listed: signal 0 alone would call it alive
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lockOf(pid, start)));
      assert.equal(ownerAlive(lockOf(pid, start), dir), false);
      const taken = tryLock(dir, 'server');
      assert.equal(taken.acquired, true);
      if (taken.acquired) taken.release();
    } finally {
      parent.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a second open in the same process keeps the process's own lock", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trk-lock-'));
    try {
      const first = tryLock(dir, 'cli');
      assert.equal(first.acquired, true);
      const second = tryLock(dir, 'cli');
      assert.equal(second.acquired, false);
      assert.equal(readLock(dir)?.pid, process.pid);
      await assert.rejects(
        claimDataDir({ dataDir: dir, role: 'server', waitMs: 5000 }),
        (e) => e instanceof EmbeddedOwnedError && e.case.kind === 'this_process',
      );
      if (first.acquired) first.release();
      // Released: the same pid in a lock file is no longer this process's (a pid reused after a restart).
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lockOf(process.pid, processStartTime(process.pid))));
      const again = tryLock(dir, 'cli');
      assert.equal(again.acquired, true);
      if (again.acquired) again.release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a live owner answering refuses a server at once; one not answering is waited for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trk-lock-'));
    const owner = await sleeper();
    // Answers an SSLRequest with 'N', as PostgreSQL and the embedded server do.
    const pgLike = createServer((s) => s.once('data', () => s.write('N')));
    await new Promise<void>((r) => pgLike.listen(0, '127.0.0.1', r));
    const address = pgLike.address();
    const answering = typeof address === 'object' && address ? address.port : 0;
    try {
      const start = processStartTime(owner.pid);
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lockOf(owner.pid, start, answering)));
      let t0 = Date.now();
      await assert.rejects(
        claimDataDir({ dataDir: dir, role: 'server', waitMs: 10_000 }),
        (e) =>
          e instanceof EmbeddedOwnedError && e.case.kind === 'answering' && e.message.includes('serves it'),
      );
      assert.ok(Date.now() - t0 < 2000, 'refused at once');
      const cli = await claimDataDir({ dataDir: dir, role: 'cli', waitMs: 0 });
      assert.deepEqual('socket' in cli && cli.socket, { host: '127.0.0.1', port: answering });

      // Nothing listens on the recorded port: waited for, then refused saying so.
      writeFileSync(join(dir, LOCK_FILE), JSON.stringify(lockOf(owner.pid, start, await freePort())));
      t0 = Date.now();
      await assert.rejects(
        claimDataDir({ dataDir: dir, role: 'server', waitMs: 400 }),
        (e) =>
          e instanceof EmbeddedOwnedError &&
          e.case.kind === 'not_answering' &&
          e.message.includes('did not answer'),
      );
      assert.ok(Date.now() - t0 >= 400);

      // The owner goes away during the wait: the lock is taken.
      setTimeout(owner.kill, 300);
      const got = await claimDataDir({ dataDir: dir, role: 'server', waitMs: 10_000 });
      assert.ok('lock' in got);
      if ('lock' in got) got.lock.release();
    } finally {
      owner.kill();
      pgLike.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
