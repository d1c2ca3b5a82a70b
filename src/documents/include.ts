import { type IncludeBuilder, Included } from '../jsonapi/resource.ts';
import { containerResourcesByIds } from '../shipments/containers/bodies.ts';
import { shipmentIncludes } from '../shipments/include.ts';
import { emailSubmissionsByIds, serializeSubmissionForDocument } from './email-submissions.ts';
import type { DocumentRow } from './queries.ts';
import { representationsByIds } from './representations.ts';
import { serializeRepresentation } from './serializer.ts';

export const DOCUMENT_INCLUDES = [
  'shipments',
  'cargos',
  'account',
  'user',
  'last_document_representation',
  'current_extraction',
  'email_submission',
] as const;

/** The `included` records of documents for the include paths asked. */
export const documentIncludes: IncludeBuilder<DocumentRow> = async (db, accountId, docs, include) => {
  const out = new Included();
  if (include.has('shipments'))
    out.addAll(await shipmentIncludes(db, accountId, [...new Set(docs.flatMap((d) => d.shipment_ids))]));
  if (include.has('cargos'))
    out.addAll(
      await containerResourcesByIds(db, accountId, [...new Set(docs.flatMap((d) => d.container_ids))]),
    );
  if (include.has('last_document_representation') || include.has('current_extraction')) {
    const ids = docs.map((d) => d.last_representation_id).filter((x): x is string => !!x);
    out.addAll((await representationsByIds(db, accountId, ids)).map((r) => serializeRepresentation(r)));
  }
  if (include.has('email_submission')) {
    const ids = docs.map((d) => d.email_submission_id).filter((x): x is string => !!x);
    out.addAll(
      (await emailSubmissionsByIds(db, accountId, ids)).map((r) => serializeSubmissionForDocument(r)),
    );
  }
  // account and user: accepted for compatibility; this service has no account or user resources.
  return out.items;
};
