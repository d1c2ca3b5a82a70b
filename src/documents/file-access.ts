import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

/** What serving a file needs, by document id alone (download links carry no account). */
export async function storageKeyOf(
  db: Kysely<DB>,
  documentId: string,
): Promise<{ storage_key: string; file_content_type: string; file_name: string } | undefined> {
  const r = await sql<{ storage_key: string; file_content_type: string; file_name: string }>`
    select storage_key, file_content_type, file_name from documents where id = ${documentId}`.execute(db);
  return r.rows[0];
}
