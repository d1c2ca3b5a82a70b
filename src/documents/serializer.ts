import { Type } from 'typebox';
import { iso, many, one, type Resource } from '../jsonapi/resource.ts';
import { Nullable, RelMany, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import type { DocumentRow } from './queries.ts';
import type { RepresentationRow } from './representations.ts';

// JSON:API shapes of documents and representations (the reference's `document` and
// `document_representation`, with our processing attributes beside them).

export function serializeDocument(d: DocumentRow): Resource {
  return {
    id: d.id,
    type: 'document',
    attributes: {
      id: d.id,
      name: d.name,
      document_type: d.document_type,
      document_type_manual: d.document_type_manual,
      classification_notes: d.classification_notes,
      source: d.source,
      file_name: d.file_name,
      file_content_type: d.file_content_type,
      file_size_bytes: Number(d.file_size_bytes),
      extraction_status: d.extraction_status,
      extraction_failed_reason: d.extraction_failed_reason,
      extracted_data_manual: d.extracted_data_manual ?? null,
      created_at: iso(d.created_at),
      updated_at: iso(d.updated_at),
    },
    relationships: {
      account: one('account', d.account_id),
      user: { data: null },
      email_submission: one('email_submission', d.email_submission_id),
      last_document_representation: one('document_representation', d.last_representation_id),
      shipments: many('shipment', d.shipment_ids),
      cargos: many('container', d.container_ids),
    },
    links: { self: `/v2/documents/${d.id}` },
  };
}

export function serializeRepresentation(r: RepresentationRow): Resource {
  return {
    id: r.id,
    type: 'document_representation',
    attributes: {
      schema_version: r.schema_version,
      payload: r.payload,
      field_confidence: r.field_confidence,
      created_at: iso(r.created_at),
      updated_at: iso(r.updated_at),
    },
    relationships: { document: one('document', r.document_id) },
  };
}

/** A document as the email submission includes it (the reference's email_submission_document). */
export function serializeEmailDocument(d: DocumentRow): Resource {
  return {
    id: d.id,
    type: 'document',
    attributes: {
      name: d.name,
      source: d.source,
      document_type: d.document_type,
      extraction_status: d.extraction_status,
      created_at: iso(d.created_at),
      updated_at: iso(d.updated_at),
    },
    relationships: {
      last_document_representation: one('document_representation', d.last_representation_id),
    },
  };
}

export const DocumentSchema = resourceSchema(
  'document',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    document_type: Type.String(),
    document_type_manual: Nullable(Type.String()),
    classification_notes: Nullable(Type.String()),
    source: Type.String(),
    file_name: Type.String(),
    file_content_type: Nullable(Type.String()),
    file_size_bytes: Nullable(Type.Integer()),
    extraction_status: Type.String({ description: 'pending, processing, extracted or failed.' }),
    extraction_failed_reason: Nullable(Type.String()),
    extracted_data_manual: Type.Unknown(),
    created_at: Type.String(),
    updated_at: Type.String(),
  }),
  Type.Object({
    account: RelOne,
    user: RelOne,
    email_submission: RelOne,
    last_document_representation: RelOne,
    shipments: RelMany,
    cargos: RelMany,
  }),
);
