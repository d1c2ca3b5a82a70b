import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Resource } from '../jsonapi/resource.ts';
import { currentSchemaVersion } from './extract/schemas.ts';
import { documentsByIds } from './queries.ts';
import { representationsByIds } from './representations.ts';
import { serializeDocument, serializeRepresentation } from './serializer.ts';

// What a document.extracted / document.extraction_failed body includes: the document and the
// representation that event announced (named in the domain event's changeset).

interface EventRef {
  reference_id: string;
  changeset: unknown;
}

/** reference id -> resources to include, for the document events of one account's batch. */
export async function documentEventResources(
  db: Kysely<DB>,
  accountId: string,
  events: EventRef[],
): Promise<Map<string, { document: Resource; representations: Map<string, Resource> }>> {
  const out = new Map<string, { document: Resource; representations: Map<string, Resource> }>();
  if (events.length === 0) return out;
  const repIds = events
    .map((e) => (e.changeset as { document_representation_id?: string } | null)?.document_representation_id)
    .filter((x): x is string => typeof x === 'string');
  const [docs, reps] = await Promise.all([
    documentsByIds(db, accountId, [...new Set(events.map((e) => e.reference_id))]),
    representationsByIds(db, accountId, [...new Set(repIds)]),
  ]);
  for (const d of docs) out.set(d.id, { document: serializeDocument(d), representations: new Map() });
  for (const r of reps) out.get(r.document_id)?.representations.set(r.id, serializeRepresentation(r));
  return out;
}

/** The representation id an event names, if any. */
export function representationOf(changeset: unknown): string | null {
  const id = (changeset as { document_representation_id?: unknown } | null)?.document_representation_id;
  return typeof id === 'string' ? id : null;
}

/** An example body of a document event (GET /v2/webhook_notifications/examples): made-up ids. */
export function sampleDocumentBody(
  event: string,
  ids: { notificationId: string; webhookId: string | null },
): string {
  const now = new Date().toISOString();
  const documentId = randomUUID();
  const representationId = randomUUID();
  const failed = event === 'document.extraction_failed';
  const document = {
    id: documentId,
    type: 'document',
    attributes: {
      id: documentId,
      name: 'MAEU123456789.pdf',
      document_type: failed ? 'other' : 'bill_of_lading',
      document_type_manual: null,
      classification_notes: failed
        ? 'not a readable PDF'
        : 'Classified by "bill of lading" in the title (score 12).',
      source: 'email',
      file_name: 'MAEU123456789.pdf',
      file_content_type: 'application/pdf',
      file_size_bytes: 48213,
      extraction_status: failed ? 'failed' : 'extracted',
      extraction_failed_reason: failed ? 'unreadable_file' : null,
      extracted_data_manual: null,
      created_at: now,
      updated_at: now,
    },
    relationships: {
      account: { data: null },
      user: { data: null },
      email_submission: { data: null },
      last_document_representation: {
        data: failed ? null : { type: 'document_representation', id: representationId },
      },
      shipments: { data: [] },
      cargos: { data: [] },
    },
    links: { self: `/v2/documents/${documentId}` },
  };
  const included: unknown[] = [document];
  if (!failed) {
    included.push({
      id: representationId,
      type: 'document_representation',
      attributes: {
        schema_version: currentSchemaVersion('bill_of_lading'),
        payload: {
          bill_of_lading_number: 'MAEU123456789',
          scac: 'MAEU',
          vessel_name: 'MAERSK ESSEX',
          voyage_number: '512W',
        },
        field_confidence: { bill_of_lading_number: 0.95, scac: 0.95 },
        created_at: now,
        updated_at: now,
      },
      relationships: { document: { data: { type: 'document', id: documentId } } },
    });
  }
  return JSON.stringify({
    data: {
      id: ids.notificationId,
      type: 'webhook_notification',
      attributes: { event, delivery_status: 'pending', created_at: now },
      relationships: {
        webhook: { data: ids.webhookId ? { type: 'webhook', id: ids.webhookId } : null },
        reference_object: { data: { type: 'document', id: documentId } },
      },
    },
    included,
  });
}
