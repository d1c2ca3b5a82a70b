import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createAccount } from '../src/accounts/service.ts';
import { loadConfig } from '../src/config.ts';
import { openPglite } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createDocument } from '../src/documents/service.ts';
import { createStorage } from '../src/documents/storage.ts';
import { startDocumentLoop } from '../src/documents/worker.ts';
import { workerId } from '../src/worker/loop.ts';
import { fixtureSet } from '../test/helpers/doc-fixtures.ts';

// Documents per minute per worker: one document loop (DOCUMENT_WORKER_CONCURRENCY=1, as
// shipped) on embedded PGlite reads a queue of text PDFs, then a queue of scans (OCR), end to end
// (file from storage, read, classify, extract, link, representation, event). Short by default:
// `node bench/documents.ts [--text 20] [--scans 4]`.

const { values } = parseArgs({
  options: { text: { type: 'string', default: '20' }, scans: { type: 'string', default: '4' } },
});
const dir = mkdtempSync(join(tmpdir(), 'bench-docs-'));
const config = loadConfig({
  LOG_LEVEL: 'silent',
  DATA_DIR: dir,
  WORKER_POLL_INTERVAL_MS: '20',
  DOCUMENTS_AUTO_TRACK: 'false',
});
const database = await openPglite(null);
await migrate(database);
const storage = createStorage(config);
const { account } = await createAccount(database.db, 'bench');
const fixtures = fixtureSet();

async function run(kind: 'text' | 'scans', count: number): Promise<number> {
  const pool = fixtures.filter((f) => f.ocr === (kind === 'scans'));
  const files = await Promise.all(pool.map(async (f) => ({ f, bytes: await f.render() })));
  for (let i = 0; i < count; i++) {
    const { f, bytes } = files[i % files.length]!;
    // A byte appended after %%EOF / the image end keeps files readable and distinct (no 409).
    const unique = Buffer.concat([bytes, Buffer.from(`\n%${kind}${i}\n`)]);
    await createDocument(
      database.db,
      storage,
      { accountId: account.id, bytes: unique, fileName: `${f.name}.bin`, source: 'api' },
      config.documents.maxBytes,
    );
  }
  const started = performance.now();
  const loop = startDocumentLoop({ database, config, log: pino({ level: 'silent' }), owner: workerId() });
  for (;;) {
    const r = await database.db
      .selectFrom('documents' as never)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('extraction_status' as never, 'in', ['pending', 'processing'] as never)
      .executeTakeFirstOrThrow();
    if (Number((r as { n: number }).n) === 0) break;
    await new Promise((r2) => setTimeout(r2, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  await loop.stop();
  return (count / seconds) * 60;
}

const text = await run('text', Number(values.text));
const scans = await run('scans', Number(values.scans));
process.stdout.write(
  `${JSON.stringify({ text_pdfs_per_minute_per_worker: Math.round(text), scans_per_minute_per_worker: Math.round(scans * 10) / 10, text: Number(values.text), scan_count: Number(values.scans) })}\n`,
);
await database.close();
rmSync(dir, { recursive: true, force: true });
