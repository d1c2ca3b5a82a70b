import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { recordDomainEvents } from '../domain-events/record.ts';
import { lockLease } from '../worker/leases.ts';
import { type ClaimedDocument, DOCUMENTS, finishSql } from './claims.ts';
import { classify, type DocumentType, isDocumentType } from './extract/classify.ts';
import type { Line } from './extract/layout.ts';
import { represent } from './extract/represent.ts';
import type { FileStorage } from './file-storage.ts';
import { autoTrack, relinkDocument } from './link.ts';
import { type ReaderLimits, readInChild, rotateInChild, stopReaderProcess } from './read/reader-process.ts';
import { UnreadableFile } from './read/unreadable.ts';
import { insertRepresentation } from './representations.ts';
import { newStorageKey } from './storage.ts';

// The readers (unpdf, sharp, tesseract.js) run in a child process of their own, started on the
// first document and ended when idle (read/reader-process.ts): an API process, or a worker that
// never sees a document, never loads them, and the service's process keeps `--liftoff-only`.
const limits = (config: Config): ReaderLimits => ({
  idleMs: config.documents.readerIdleMs,
  timeoutMs: config.documents.readTimeoutMs,
});

/** Ends the reader process if one runs (worker shutdown). */
export async function stopReaders(): Promise<void> {
  await stopReaderProcess();
}

// One run of document work: read (PDF text layer or OCR), classify, extract, link, auto-track,
// and announce, applied in one transaction that checks the lease. Reading happens before that
// transaction, outside any lock.

export interface DocumentDeps {
  db: Kysely<DB>;
  config: Config;
  log: Logger;
  owner: string;
  storage: FileStorage;
  /** After a commit that queued webhook notifications or a tracking request. */
  onWork?: (kind: 'webhook' | 'tracking_request') => void;
}

interface Stored {
  lines: Line[];
  source: string;
}

export async function processDocument(deps: DocumentDeps, doc: ClaimedDocument): Promise<void> {
  try {
    await run(deps, doc);
  } catch (err) {
    if (err instanceof UnreadableFile) return fail(deps, doc, 'unreadable_file', err.message);
    if ((err as Error).name === 'LeaseLost') throw err;
    const cfg = deps.config.documents;
    if (doc.attempt_count >= cfg.retryMax) return fail(deps, doc, 'processing_error', (err as Error).message);
    deps.log.warn({ err, document: doc.id }, 'document processing failed; retrying');
    const delay = cfg.retryBaseMs * 2 ** doc.attempt_count;
    await sql`update documents set attempt_count = attempt_count + 1, lease_owner = null, lease_expires_at = null,
        extraction_status = case when last_representation_id is null then 'pending' else 'extracted' end,
        next_process_at = now() + make_interval(secs => ${delay / 1000}), updated_at = now()
      where id = ${doc.id} and lease_owner = ${deps.owner}`.execute(deps.db);
  }
}

async function run(deps: DocumentDeps, doc: ClaimedDocument): Promise<void> {
  const { db, storage } = deps;
  const action = doc.pending_action;
  let storageKey = doc.storage_key;
  let rotatedFrom: string | null = null;
  let rotatedSize: number | null = null;
  let stored = doc.extracted_text as Stored | null;

  if (action === 'rotate' && doc.rotate_degrees) {
    const rotated = await rotateInChild(
      limits(deps.config),
      await storage.get(doc.storage_key),
      doc.rotate_degrees as 90 | 180 | 270,
    );
    storageKey = newStorageKey(doc.account_id);
    await storage.put(storageKey, rotated);
    rotatedFrom = doc.storage_key;
    rotatedSize = rotated.length;
    stored = null;
  }
  if (action === 'process' || action === 'rotate' || !stored) {
    const read = await readInChild(
      limits(deps.config),
      await storage.get(storageKey),
      doc.file_content_type,
      {
        ocr: deps.config.documents.ocr,
      },
    );
    stored = { lines: read.lines, source: read.source };
    if (read.lines.length === 0) {
      throw new UnreadableFile(
        read.source === 'none' ? 'the file has no text layer and OCR is off' : 'no text was found',
      );
    }
  }
  const lines = stored.lines;

  // Classification: fresh on a (re)read or a reclassify; a re-extraction keeps the type.
  const previous = doc.document_type as DocumentType;
  const fresh = action === 'reextract' || action === 'relink' ? null : classify(lines);
  const systemType: DocumentType = fresh?.type ?? (isDocumentType(previous) ? previous : 'other');
  const manual =
    doc.document_type_manual && isDocumentType(doc.document_type_manual) ? doc.document_type_manual : null;
  const type = manual ?? systemType;
  const extract =
    action === 'process' ||
    action === 'rotate' ||
    action === 'reextract' ||
    (action === 'reclassify' && (systemType !== previous || !doc.last_representation_id)) ||
    (action === 'relink' && !doc.last_representation_id);
  const rep = represent(type, lines);

  let trackingCreated = false;
  let announced = false;
  await db.transaction().execute(async (tx) => {
    await lockLease(tx, DOCUMENTS, doc.id, deps.owner);
    let repId: string | null = null;
    if (extract) repId = await insertRepresentation(tx, doc.account_id, doc.id, rep);
    await sql`update documents set
        extracted_text = ${JSON.stringify(stored)}::jsonb, text_source = ${stored!.source},
        storage_key = ${storageKey},
        file_size_bytes = ${rotatedSize ?? sql`file_size_bytes`},
        document_type = ${systemType},
        classification_notes = ${fresh ? fresh.notes : sql`classification_notes`},
        last_representation_id = ${repId ?? sql`last_representation_id`},
        extraction_status = 'extracted', extraction_failed_reason = null,
        rotate_degrees = case when ${action} = 'rotate' then null else rotate_degrees end,
        ${finishSql(doc.claimed_at)}
      where id = ${doc.id}`.execute(tx);
    const shipments = await relinkDocument(tx, doc.account_id, doc.id, rep.link_numbers);
    if (extract && shipments.length === 0 && deps.config.documents.autoTrack) {
      trackingCreated = (await autoTrack(tx, doc.account_id, doc.id, rep.trackable))?.created ?? false;
    }
    if (repId) {
      await recordDomainEvents(tx, [
        {
          event: 'document.extracted',
          account_id: doc.account_id,
          shipment_id: shipments[0] ?? null,
          reference_type: 'document',
          reference_id: doc.id,
          changeset: { document_representation_id: repId, document_type: type },
        },
      ]);
      announced = true;
    }
  });
  if (rotatedFrom) await storage.delete(rotatedFrom).catch(() => {});
  if (announced) deps.onWork?.('webhook');
  if (trackingCreated) deps.onWork?.('tracking_request');
}

async function fail(deps: DocumentDeps, doc: ClaimedDocument, reason: string, detail: string): Promise<void> {
  deps.log.info({ document: doc.id, reason, detail }, 'document extraction failed');
  await deps.db.transaction().execute(async (tx) => {
    await lockLease(tx, DOCUMENTS, doc.id, deps.owner);
    await sql`update documents set extraction_status = 'failed', extraction_failed_reason = ${reason},
        classification_notes = coalesce(classification_notes, ${detail.slice(0, 500)}),
        ${finishSql(doc.claimed_at)}
      where id = ${doc.id}`.execute(tx);
    await recordDomainEvents(tx, [
      {
        event: 'document.extraction_failed',
        account_id: doc.account_id,
        reference_type: 'document',
        reference_id: doc.id,
        changeset: { reason, detail: detail.slice(0, 500) },
      },
    ]);
  });
  deps.onWork?.('webhook');
}
