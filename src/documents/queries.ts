import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { byId, byIds } from '../db/by-ids.ts';
import type { DB, DocumentsTable } from '../db/schema.ts';

// SQL of documents, their representations and links. Rows stay here; services get plain objects.

/** A document as COLUMNS reads it: its table's columns (src/db/schema.ts) and its links. */
export type DocumentRow = Pick<
  Selectable<DocumentsTable>,
  | 'id'
  | 'account_id'
  | 'name'
  | 'file_name'
  | 'file_content_type'
  | 'file_size_bytes'
  | 'sha256'
  | 'storage_key'
  | 'source'
  | 'email_submission_id'
  | 'document_type'
  | 'document_type_manual'
  | 'classification_notes'
  | 'extraction_status'
  | 'extraction_failed_reason'
  | 'extracted_data_manual'
  | 'last_representation_id'
  | 'tracking_request_id'
  | 'created_at'
  | 'updated_at'
> & { shipment_ids: string[]; container_ids: string[] };

const COLUMNS = sql`d.id, d.account_id, d.name, d.file_name, d.file_content_type, d.file_size_bytes, d.sha256,
  d.storage_key, d.source, d.email_submission_id, d.document_type, d.document_type_manual,
  d.classification_notes, d.extraction_status, d.extraction_failed_reason, d.extracted_data_manual,
  d.last_representation_id, d.tracking_request_id, d.created_at, d.updated_at,
  array(select s.shipment_id::text from document_shipments s where s.document_id = d.id order by s.shipment_id) as shipment_ids,
  array(select c.container_id::text from document_containers c where c.document_id = d.id order by c.container_id) as container_ids`;

export interface NewDocument {
  account_id: string;
  name: string;
  file_name: string;
  file_content_type: string;
  file_size_bytes: number;
  sha256: string;
  storage_key: string;
  source: 'api' | 'email' | 'upload';
  email_submission_id?: string | null;
}

export class DuplicateDocument extends Error {
  readonly existing: { id: string; name: string };
  constructor(existing: { id: string; name: string }) {
    super('duplicate document');
    this.existing = existing;
  }
}

/** Inserts a document queued for processing; byte-identical content of the account is refused. */
export async function insertDocument(db: Kysely<DB>, d: NewDocument): Promise<DocumentRow> {
  const id = randomUUID();
  const r = await sql<{ id: string }>`
    insert into documents (id, account_id, name, file_name, file_content_type, file_size_bytes, sha256,
                           storage_key, source, email_submission_id, pending_action, next_process_at)
    values (${id}, ${d.account_id}, ${d.name}, ${d.file_name}, ${d.file_content_type}, ${d.file_size_bytes},
            ${d.sha256}, ${d.storage_key}, ${d.source}, ${d.email_submission_id ?? null}, 'process', now())
    on conflict (account_id, sha256) do nothing
    returning id`.execute(db);
  if (r.rows.length === 0) {
    const existing = await findBySha(db, d.account_id, d.sha256);
    throw new DuplicateDocument(existing ?? { id: '', name: '' });
  }
  return (await findDocument(db, d.account_id, id))!;
}

export async function findBySha(
  db: Kysely<DB>,
  accountId: string,
  sha256: string,
): Promise<{ id: string; name: string } | undefined> {
  return db
    .selectFrom('documents')
    .select(['id', 'name'])
    .where('account_id', '=', accountId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
}

export const findDocument = byId<DocumentRow>(async (db, accountId, id) => {
  const r = await sql<DocumentRow>`select ${COLUMNS} from documents d
      where d.account_id = ${accountId} and d.id = ${id}`.execute(db);
  return r.rows[0];
});

/** Documents by id, for the renderer of webhook bodies and includes. */
export const documentsByIds = byIds<DocumentRow>(async (db, accountId, ids) => {
  const r = await sql<DocumentRow>`select ${COLUMNS} from documents d
      where d.account_id = ${accountId} and d.id = any(${ids}::uuid[])`.execute(db);
  return r.rows;
});

export interface ListFilter {
  types?: string[];
  filename?: string;
  emailSubmissionIds?: string[];
  /** A B/L, booking or container number the document carries. */
  reference?: string;
}

export async function listDocuments(
  db: Kysely<DB>,
  accountId: string,
  f: ListFilter,
  page: { number: number; size: number },
  sort: { column: 'created_at' | 'document_type'; desc: boolean },
): Promise<{ rows: DocumentRow[]; total: number }> {
  const where = sql`d.account_id = ${accountId}
    ${f.types ? sql`and coalesce(d.document_type_manual, d.document_type) = any(${f.types}::text[])` : sql``}
    ${f.reference ? sql`and ${f.reference.replace(/\s+/g, '').toUpperCase()} = any(d.link_numbers)` : sql``}
    ${f.filename ? sql`and (d.file_name ilike ${`%${escapeLike(f.filename)}%`} or d.name ilike ${`%${escapeLike(f.filename)}%`})` : sql``}`;
  const order = sql.raw(`d.${sort.column} ${sort.desc ? 'desc' : 'asc'}, d.id ${sort.desc ? 'desc' : 'asc'}`);
  const [rows, total] = await Promise.all([
    sql<DocumentRow>`select ${COLUMNS} from documents d where ${where} order by ${order}
      limit ${page.size} offset ${(page.number - 1) * page.size}`.execute(db),
    sql<{ n: number }>`select count(*)::int as n from documents d where ${where}`.execute(db),
  ]);
  return { rows: rows.rows, total: total.rows[0]?.n ?? 0 };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const documentsOfSubmissions = byIds<DocumentRow>(async (db, accountId, ids) => {
  const r = await sql<DocumentRow>`select ${COLUMNS} from documents d
      where d.account_id = ${accountId} and d.email_submission_id = any(${ids}::uuid[])
      order by d.created_at, d.id`.execute(db);
  return r.rows;
});

/** Deletes the record; answers its storage key so the caller removes the file. */
export async function deleteDocument(db: Kysely<DB>, accountId: string, id: string): Promise<string | null> {
  const r = await db
    .deleteFrom('documents')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returning('storage_key')
    .executeTakeFirst();
  return r?.storage_key ?? null;
}

export async function updateManual(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  patch: { document_type_manual?: string | null; extracted_data_manual?: unknown },
): Promise<void> {
  const sets = [sql`updated_at = now()`];
  if (patch.document_type_manual !== undefined)
    sets.push(sql`document_type_manual = ${patch.document_type_manual}`);
  if (patch.extracted_data_manual !== undefined) {
    sets.push(
      sql`extracted_data_manual = ${patch.extracted_data_manual === null ? null : JSON.stringify(patch.extracted_data_manual)}::jsonb`,
    );
  }
  await sql`update documents set ${sql.join(sets)} where account_id = ${accountId} and id = ${id}`.execute(
    db,
  );
}

const ACTION_RANK = sql.raw(`array['relink', 'reclassify', 'reextract', 'process', 'rotate']`);

/**
 * Queues work on a document. A stronger action already queued is kept (a rotation includes a
 * re-read, a re-read includes re-linking), so requests made in a row fold into one run.
 */
export async function queueAction(
  db: Kysely<DB>,
  accountId: string,
  id: string,
  action: 'process' | 'reextract' | 'reclassify' | 'relink' | 'rotate',
  rotateDegrees: number | null = null,
): Promise<boolean> {
  const r = await sql`
    update documents set
      pending_action = case when pending_action is null
                              or array_position(${ACTION_RANK}, ${action}) >= array_position(${ACTION_RANK}, pending_action)
                            then ${action} else pending_action end,
      rotate_degrees = case when ${action} = 'rotate' then ((coalesce(rotate_degrees, 0) + ${rotateDegrees ?? 0}) % 360) else rotate_degrees end,
      next_process_at = now(), attempt_count = 0, updated_at = now()
    where account_id = ${accountId} and id = ${id}`.execute(db);
  return Number(r.numAffectedRows ?? 0) > 0;
}
