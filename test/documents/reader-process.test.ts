import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import type { Config } from '../../src/config.ts';
import { claimDueDocuments } from '../../src/documents/claims.ts';
import { type DocumentDeps, processDocument, stopReaders } from '../../src/documents/process.ts';
import { readFile } from '../../src/documents/read/read.ts';
import { readerExecArgv, readerPid, readInChild } from '../../src/documents/read/reader-process.ts';
import { createDocument } from '../../src/documents/service.ts';
import { createStorage } from '../../src/documents/storage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';

// The reader child process (src/documents/read/reader-process.ts): it reads as the readers do in
// process, ends when idle and starts again on the next document, and a child that dies or hangs
// fails only that attempt, which is retried in a fresh child. Text PDFs only (no OCR): fast.

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('the child takes the heap flags and drops --liftoff-only, inspector and test runner flags', () => {
  assert.deepEqual(
    readerExecArgv([
      '--max-semi-space-size=8',
      '--max-old-space-size=160',
      '--no-allocation-site-pretenuring',
      '--liftoff-only',
      '--inspect-port=127.0.0.1:9229',
      '--test-timeout=1000',
      '--watch-kill-signal=SIGTERM',
    ]),
    ['--max-semi-space-size=8', '--max-old-space-size=160', '--no-allocation-site-pretenuring'],
  );
});

test('a read in the child gives exactly what the readers give in process', async () => {
  const pdf = await renderPdf(layoutOps(transportDoc(81), 'inline'));
  const limits = { idleMs: 60_000, timeoutMs: 60_000 };
  assert.deepEqual(
    await readInChild(limits, pdf, 'application/pdf', { ocr: false }),
    await readFile(pdf, 'application/pdf', { ocr: false }),
  );
  await assert.rejects(
    readInChild(limits, Buffer.from('not a pdf'), 'application/pdf', { ocr: false }),
    (err: Error) => err.constructor.name === 'UnreadableFile' && /not a readable PDF/.test(err.message),
  );
  await stopReaders();
  assert.equal(readerPid(), undefined);
});

for (const engine of ENGINES) {
  describe(`documents: the reader process [${engine}]`, () => {
    let t: TestApp;
    let dir: string;
    let deps: DocumentDeps;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'docreader-'));
      t = await startTestApp(engine, {
        DATA_DIR: dir,
        // Long enough that the reader is still up when processDocument's transaction has committed
        // on a busy host (the first test looks for it then), short enough to wait for its end.
        DOCUMENT_READER_IDLE_MS: '1500',
        DOCUMENT_RETRY_BASE_MS: '1000',
      });
      deps = {
        db: t.database.db,
        config: t.config,
        log: pino({ level: 'silent' }),
        owner: 'w',
        storage: createStorage(t.config),
      };
    });
    after(async () => {
      await stopReaders();
      await t?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    const newDoc = async (seed: number) => {
      const pdf = await renderPdf(layoutOps(transportDoc(seed), 'inline'));
      return createDocument(
        t.database.db,
        createStorage(t.config),
        { accountId: t.accountId, bytes: pdf, fileName: `${seed}.pdf`, source: 'api' },
        t.config.documents.maxBytes,
      );
    };
    const claim = async (id: string) =>
      (await claimDueDocuments(t.database.db, 'w', 10, 60_000)).find((x) => x.id === id)!;
    const state = async (id: string) =>
      (
        await sql<{ extraction_status: string; attempt_count: number }>`
          select extraction_status, attempt_count from documents where id = ${id}`.execute(t.database.db)
      ).rows[0];
    /** Makes a retry due now rather than after its back-off. */
    const dueNow = (id: string) =>
      sql`update documents set next_process_at = now() where id = ${id}`.execute(t.database.db);

    test('the child ends after its idle time, and the next document starts a new one', async () => {
      const a = await newDoc(82);
      await processDocument(deps, await claim(a.id));
      assert.equal((await state(a.id))?.extraction_status, 'extracted');
      const first = readerPid();
      assert.ok(first && alive(first), 'a reader runs after a read');
      await eventually(
        async () => readerPid() === undefined && !alive(first),
        10_000,
        'the idle reader ended',
      );
      const b = await newDoc(83);
      await processDocument(deps, await claim(b.id));
      assert.equal((await state(b.id))?.extraction_status, 'extracted');
      const second = readerPid();
      assert.ok(second && second !== first && alive(second), 'a new reader');
    });

    test('a child killed mid-read fails that attempt, which is retried and succeeds in a new child', async () => {
      await stopReaders();
      const d = await newDoc(84);
      const running = processDocument(deps, await claim(d.id));
      const pid = await eventually(async () => readerPid(), 10_000, 'the reader started');
      process.kill(pid, 'SIGKILL');
      await running;
      assert.deepEqual(
        await state(d.id),
        { extraction_status: 'pending', attempt_count: 1 },
        'retry scheduled',
      );
      await dueNow(d.id);
      await processDocument(deps, await claim(d.id));
      assert.equal((await state(d.id))?.extraction_status, 'extracted');
      assert.notEqual(readerPid(), pid);
    });

    test('a child that does not answer in time is ended, and the attempt is retried', async () => {
      const d = await newDoc(85);
      const slow: Config = { ...t.config, documents: { ...t.config.documents, readTimeoutMs: 1500 } };
      // A child that is up but stopped (SIGSTOP) neither answers nor exits.
      await readInChild({ idleMs: 60_000, timeoutMs: 60_000 }, Buffer.from('warm'), 'text/plain', {
        ocr: false,
      }).catch(() => {});
      const pid = readerPid()!;
      process.kill(pid, 'SIGSTOP');
      const started = Date.now();
      await processDocument({ ...deps, config: slow }, await claim(d.id));
      assert.ok(Date.now() - started >= 1400, 'failed by the time bound');
      assert.deepEqual(await state(d.id), { extraction_status: 'pending', attempt_count: 1 });
      await eventually(async () => !alive(pid), 10_000, 'the stopped reader killed');
      await dueNow(d.id);
      await processDocument(deps, await claim(d.id));
      assert.equal((await state(d.id))?.extraction_status, 'extracted');
    });
  });
}
