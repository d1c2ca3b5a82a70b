import { createHash, randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ApiError, invalidAttribute } from '../errors.ts';
import type { FileStorage } from './file-storage.ts';
import { CONTENT_TYPES, detectFileKind } from './file-type.ts';
import { type DocumentRow, DuplicateDocument, findBySha, insertDocument } from './queries.ts';
import { newStorageKey } from './storage.ts';

// Creating documents from bytes, whichever way they came (multipart, direct upload, e-mail):
// type from the bytes, size limit, duplicate rule, file stored before the row that names it.

export interface NewFile {
  accountId: string;
  bytes: Buffer;
  fileName: string;
  name?: string | null;
  source: 'api' | 'email';
  emailSubmissionId?: string | null;
}

export const tooLarge = (maxBytes: number) =>
  new ApiError(413, [
    { detail: `The file is larger than the limit of ${maxBytes} bytes.`, code: 'file_too_large' },
  ]);

export const unsupportedFile = () =>
  new ApiError(422, [
    {
      source: { pointer: '/data/attributes/file' },
      detail: 'The file is not a PDF, PNG, JPEG or TIFF (the type is read from its bytes).',
      code: 'unsupported_file_type',
    },
  ]);

export function duplicate(existing: { id: string; name: string }): ApiError {
  const err = new ApiError(409, [
    {
      title: 'Duplicate document',
      detail: `The account already has this file as document ${existing.id} ("${existing.name}").`,
      code: 'duplicate_document',
    },
  ]);
  Object.assign(err.errors[0]!, {
    meta: { existing_document_id: existing.id, existing_document_name: existing.name },
  });
  return err;
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export async function createDocument(
  db: Kysely<DB>,
  storage: FileStorage,
  f: NewFile,
  maxBytes: number,
): Promise<DocumentRow> {
  if (f.bytes.length > maxBytes) throw tooLarge(maxBytes);
  const kind = detectFileKind(f.bytes);
  if (!kind) throw unsupportedFile();
  const hash = sha256(f.bytes);
  const existing = await findBySha(db, f.accountId, hash);
  if (existing) throw duplicate(existing);
  const key = newStorageKey(f.accountId);
  await storage.put(key, f.bytes);
  const fileName = cleanFileName(f.fileName) || `document.${kind === 'jpeg' ? 'jpg' : kind}`;
  try {
    return await insertDocument(db, {
      account_id: f.accountId,
      name: (f.name ?? '').trim() || fileName,
      file_name: fileName,
      file_content_type: CONTENT_TYPES[kind],
      file_size_bytes: f.bytes.length,
      sha256: hash,
      storage_key: key,
      source: f.source,
      email_submission_id: f.emailSubmissionId ?? null,
    });
  } catch (err) {
    await storage.delete(key).catch(() => {});
    if (err instanceof DuplicateDocument) throw duplicate(err.existing);
    throw err;
  }
}

/** The last path component, without control characters, at most 255 characters. */
export function cleanFileName(name: string): string {
  return (name.split(/[/\\]/).pop() ?? '')
    .replace(/\p{Cc}/gu, '')
    .trim()
    .slice(0, 255);
}

// --- Direct uploads ---------------------------------------------------------------------------

export interface BlobInput {
  filename: string;
  byte_size: number;
  checksum: string;
  content_type?: string;
}

export async function createBlob(
  db: Kysely<DB>,
  accountId: string,
  b: BlobInput,
  maxBytes: number,
): Promise<string> {
  if (b.byte_size > maxBytes) throw tooLarge(maxBytes);
  if (!/^[A-Za-z0-9+/]{22}==$/.test(b.checksum)) {
    throw invalidAttribute('/blob/checksum', 'checksum must be the base64 MD5 of the file (24 characters).');
  }
  const id = randomUUID();
  await sql`insert into document_blobs (id, account_id, filename, byte_size, checksum, content_type)
    values (${id}, ${accountId}, ${cleanFileName(b.filename)}, ${b.byte_size}, ${b.checksum}, ${b.content_type ?? null})`.execute(
    db,
  );
  return id;
}

function findBlob(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('document_blobs')
    .select(['id', 'account_id', 'filename', 'byte_size', 'checksum', 'storage_key', 'sha256', 'uploaded_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The PUT of a direct upload: size and MD5 must be what the blob declared. */
export async function uploadBlob(
  db: Kysely<DB>,
  storage: FileStorage,
  blobId: string,
  bytes: Buffer,
): Promise<void> {
  const blob = await findBlob(db, blobId);
  if (!blob) throw new ApiError(404, [{ detail: 'No such upload.', code: 'not_found' }]);
  if (blob.uploaded_at)
    throw new ApiError(409, [{ detail: 'These bytes were already uploaded.', code: 'already_uploaded' }]);
  if (bytes.length !== Number(blob.byte_size)) {
    throw new ApiError(422, [
      {
        detail: `The body has ${bytes.length} bytes; the upload declared ${blob.byte_size}.`,
        code: 'byte_size_mismatch',
      },
    ]);
  }
  const md5 = createHash('md5').update(bytes).digest('base64');
  if (md5 !== blob.checksum) {
    throw new ApiError(422, [
      { detail: 'The body does not match the declared MD5 checksum.', code: 'checksum_mismatch' },
    ]);
  }
  const key = newStorageKey(blob.account_id);
  await storage.put(key, bytes);
  await sql`update document_blobs set storage_key = ${key}, sha256 = ${sha256(bytes)}, uploaded_at = now()
    where id = ${blobId}`.execute(db);
}

/** POST /v2/documents with attached_document: the uploaded blob becomes a document. */
export async function createFromBlob(
  db: Kysely<DB>,
  storage: FileStorage,
  accountId: string,
  blobId: string | null,
  name: string | null,
  maxBytes: number,
): Promise<DocumentRow> {
  const blob = blobId ? await findBlob(db, blobId) : undefined;
  if (!blob || blob.account_id !== accountId || !blob.uploaded_at || !blob.storage_key) {
    throw invalidAttribute(
      '/data/attributes/attached_document',
      'attached_document is not the signed id of a completed upload of this account.',
      'invalid_signed_id',
    );
  }
  const bytes = await storage.get(blob.storage_key);
  const doc = await createDocument(
    db,
    storage,
    { accountId, bytes, fileName: blob.filename, name, source: 'api' },
    maxBytes,
  );
  // The blob has served: its copy goes (the document has its own file).
  await sql`delete from document_blobs where id = ${blob.id}`.execute(db);
  await storage.delete(blob.storage_key).catch(() => {});
  return doc;
}
