import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { byIds } from '../db/by-ids.ts';
import type { DB } from '../db/schema.ts';

export interface RepresentationRow {
  id: string;
  document_id: string;
  schema_version: string;
  payload: Record<string, unknown>;
  field_confidence: Record<string, number>;
  created_at: Date;
  updated_at: Date;
}

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
