import { randomUUID } from 'node:crypto';
import { type Kysely, type Selectable, sql } from 'kysely';
import { byIds } from '../db/by-ids.ts';
import type { DB, DocumentRepresentationsTable } from '../db/schema.ts';

/** A representation as read: its columns (src/db/schema.ts), with the shapes its JSON holds. */
export type RepresentationRow = Omit<
  Selectable<DocumentRepresentationsTable>,
  'account_id' | 'payload' | 'field_confidence'
> & { payload: Record<string, unknown>; field_confidence: Record<string, number> };

export async function insertRepresentation(
  db: Kysely<DB>,
  accountId: string,
  documentId: string,
  r: { schema_version: string; payload: unknown; field_confidence: unknown },
): Promise<string> {
  const id = randomUUID();
  await sql`insert into document_representations (id, document_id, account_id, schema_version, payload, field_confidence)
    values (${id}, ${documentId}, ${accountId}, ${r.schema_version}, ${JSON.stringify(r.payload)}::jsonb,
            ${JSON.stringify(r.field_confidence)}::jsonb)`.execute(db);
  return id;
}

export const representationsByIds = byIds<RepresentationRow>(async (db, accountId, ids) => {
  const r = await sql<RepresentationRow>`
      select id, document_id, schema_version, payload, field_confidence, created_at, updated_at
        from document_representations where account_id = ${accountId} and id = any(${ids}::uuid[])`.execute(
    db,
  );
  return r.rows;
});
