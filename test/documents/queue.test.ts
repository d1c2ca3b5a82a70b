import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pino from 'pino';
import { claimDueDocuments, DOCUMENTS } from '../../src/documents/claims.ts';
import { processDocument } from '../../src/documents/process.ts';
import { createDocument } from '../../src/documents/service.ts';
import { createStorage } from '../../src/documents/storage.ts';
import { LeaseLost, lockLease } from '../../src/worker/leases.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';

// The document queue without a running worker: leases are exclusive and expire, a lost lease
// writes nothing, and unexpected errors are retried with back-off before failing for good.

for (const engine of ENGINES) {
  describe(`documents: queue and retries [${engine}]`, () => {
    let t: TestApp;
    let dir: string;
    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'docq-'));
      t = await startTestApp(engine, {
        DATA_DIR: dir,
        DOCUMENT_RETRY_BASE_MS: '1000',
        DOCUMENT_RETRY_MAX: '1',
      });
    });
    after(async () => {
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

    test('one claimant at a time; an expired lease is taken over and the first owner can no longer write', async () => {
      const d = await newDoc(71);
      const a = await claimDueDocuments(t.database.db, 'worker-a', 10, 200);
      assert.deepEqual(
        a.map((x) => x.id),
        [d.id],
      );
      assert.equal(a[0]!.pending_action, 'process');
      assert.deepEqual(await claimDueDocuments(t.database.db, 'worker-b', 10, 200), [], 'leased');
      await new Promise((r) => setTimeout(r, 300));
      const b = await claimDueDocuments(t.database.db, 'worker-b', 10, 60_000);
      assert.deepEqual(
        b.map((x) => x.id),
        [d.id],
      );
      await assert.rejects(
        t.database.db.transaction().execute((tx) => lockLease(tx, DOCUMENTS, d.id, 'worker-a')),
        LeaseLost,
      );
      const deps = {
        db: t.database.db,
        config: t.config,
        log: pino({ level: 'silent' }),
        owner: 'worker-b',
        storage: createStorage(t.config),
      };
      await processDocument(deps, b[0]!);
      const r = await sql<{
        extraction_status: string;
        pending_action: string | null;
        lease_owner: string | null;
      }>`
        select extraction_status, pending_action, lease_owner from documents where id = ${d.id}`.execute(
        t.database.db,
      );
      assert.deepEqual(r.rows[0], {
        extraction_status: 'extracted',
        pending_action: null,
        lease_owner: null,
      });
    });

    test('an unexpected error (the file gone from storage) is retried, then fails with processing_error', async () => {
      const d = await newDoc(72);
      const row = await sql<{
        storage_key: string;
      }>`select storage_key from documents where id = ${d.id}`.execute(t.database.db);
      await createStorage(t.config).delete(row.rows[0]!.storage_key);
      const deps = {
        db: t.database.db,
        config: t.config,
        log: pino({ level: 'silent' }),
        owner: 'w',
        storage: createStorage(t.config),
      };
      const first = (await claimDueDocuments(t.database.db, 'w', 10, 60_000)).find((x) => x.id === d.id)!;
      await processDocument(deps, first);
      const mid = await sql<{ extraction_status: string; attempt_count: number; due: boolean }>`
        select extraction_status, attempt_count, next_process_at > now() as due from documents where id = ${d.id}`.execute(
        t.database.db,
      );
      assert.deepEqual(
        mid.rows[0],
        { extraction_status: 'pending', attempt_count: 1, due: true },
        'retry scheduled later',
      );
      assert.deepEqual(
        await claimDueDocuments(t.database.db, 'w', 10, 60_000),
        [],
        'not before its back-off',
      );
      // The back-off (2 s here) has passed: move its time rather than wait for it.
      await sql`update documents set next_process_at = now() where id = ${d.id}`.execute(t.database.db);
      const second = (await claimDueDocuments(t.database.db, 'w', 10, 60_000)).find((x) => x.id === d.id)!;
      assert.equal(second.attempt_count, 1);
      await processDocument(deps, second);
      const end = await sql<{ extraction_status: string; extraction_failed_reason: string; events: number }>`
        select extraction_status, extraction_failed_reason,
               (select count(*)::int from domain_events where reference_id = ${d.id} and event = 'document.extraction_failed') as events
          from documents where id = ${d.id}`.execute(t.database.db);
      assert.deepEqual(end.rows[0], {
        extraction_status: 'failed',
        extraction_failed_reason: 'processing_error',
        events: 1,
      });
    });
  });
}
