import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { LOCK_FILE, type LockInfo, processStartTime, readLock, tryLock } from '../../src/db/embedded-lock.ts';

// The lock's judgement of who owns a data directory: a live owner is respected, a dead one (or a
// reused pid: same number, other start time) is stale and broken, and release leaves no file.

const lockOf = (pid: number, startTime: string | null): LockInfo => ({
  pid,
  startTime,
  role: 'server',
  socket: { host: '127.0.0.1', port: 1 },
  since: new Date().toISOString(),
});

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
});
