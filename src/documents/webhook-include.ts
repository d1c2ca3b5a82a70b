import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Resource } from '../http/jsonapi.ts';
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
