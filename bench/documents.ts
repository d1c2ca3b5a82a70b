import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createAccount } from '../src/accounts/service.ts';
import { loadConfig } from '../src/config.ts';
import { openPglite } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { readerPid } from '../src/documents/read/reader-process.ts';
import { createDocument } from '../src/documents/service.ts';
import { createStorage } from '../src/documents/storage.ts';
import { startDocumentLoop } from '../src/documents/worker.ts';
import { workerId } from '../src/worker/loop.ts';
import { fixtureSet } from '../test/helpers/doc-fixtures.ts';

// Documents per minute per worker: one document loop (DOCUMENT_WORKER_CONCURRENCY=1, as
// shipped) on embedded PGlite reads a queue of text PDFs, then a queue of scans (OCR), end to end
// (file from storage, read, classify, extract, link, representation, event). Short by default:
// `node bench/documents.ts [--text 20] [--scans 4]`. Run it with the node flags of `npm start`
// (package.json) to measure what the service does: the files are read in the reader child process,
// which drops `--liftoff-only`, while this process (PGlite) keeps it.
// Besides documents per minute (wall time: noisy on a shared machine) it reports CPU seconds per
// document of this process and the reader child together (Linux: /proc, the child's CPU counted once
// it has ended, which the loop's stop waits for), and the child's peak resident memory.

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

// CPU seconds of this process and of its ended children (utime, stime, cutime, cstime), Linux only.
const TICK_S = 0.01; // USER_HZ is 100 on Linux
function cpuSeconds(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return fields.slice(11, 15).reduce((a, b) => a + Number(b), 0) * TICK_S;
  } catch {
    return null;
  }
}

/** The reader child's peak resident memory so far (VmHWM), in MB. */
function readerPeakMb(): number | null {
  const pid = readerPid();
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return pid && kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}

interface Run {
  perMinute: number;
  cpuPerDoc: number | null;
  readerPeakMb: number | null;
}

async function run(kind: 'text' | 'scans', count: number): Promise<Run> {
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
  const cpu0 = cpuSeconds();
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
  const peak = readerPeakMb();
  await loop.stop();
  const cpu1 = cpuSeconds();
  return {
    perMinute: (count / seconds) * 60,
    cpuPerDoc: cpu0 === null || cpu1 === null ? null : Math.round(((cpu1 - cpu0) / count) * 100) / 100,
    readerPeakMb: peak,
  };
}

const text = await run('text', Number(values.text));
const scans = await run('scans', Number(values.scans));
process.stdout.write(
  `${JSON.stringify({
    text_pdfs_per_minute_per_worker: Math.round(text.perMinute),
    scans_per_minute_per_worker: Math.round(scans.perMinute * 10) / 10,
    text: Number(values.text),
    scan_count: Number(values.scans),
    cpu_s_per_text_pdf: text.cpuPerDoc,
    cpu_s_per_scan: scans.cpuPerDoc,
    reader_peak_mb: { text: text.readerPeakMb, scans: scans.readerPeakMb },
    reader_running_at_end: readerPid() !== undefined,
  })}\n`,
);
await database.close();
rmSync(dir, { recursive: true, force: true });
