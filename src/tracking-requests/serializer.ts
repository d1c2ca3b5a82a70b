import { Type } from 'typebox';
import { iso, one, type Resource, selfLink } from '../jsonapi/document.ts';
import { DateTime, Nullable, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import type { TrackingRequest } from './queries.ts';

export const STATUSES = ['pending', 'awaiting_manifest', 'created', 'failed', 'tracking_stopped'] as const;
export const FAILED_REASONS = [
  'booking_cancelled',
  'duplicate',
  'expired',
  'internal_processing_error',
  'invalid_number',
  'not_found',
  'retries_exhausted',
  'shipping_line_unreachable',
  'unrecognized_response',
  'data_unavailable',
  'scac_auto_detect_failed',
  'awaiting_manifest',
] as const;

export const TrackingRequestSchema = resourceSchema(
  'tracking_request',
  Type.Object({
    request_number: Type.String(),
    request_type: Type.Union([
      Type.Literal('bill_of_lading'),
      Type.Literal('booking_number'),
      Type.Literal('container'),
    ]),
    scac: Nullable(Type.String({ description: 'Null until auto_detect_vocc_scac has decided it.' })),
    ref_numbers: Type.Array(Type.String()),
    tags: Type.Array(Type.String()),
    shipment_tags: Type.Array(Type.String()),
    status: Type.Union(STATUSES.map((s) => Type.Literal(s))),
    failed_reason: Nullable(Type.String({ enum: [...FAILED_REASONS] })),
    is_retrying: Type.Boolean(),
    retry_count: Nullable(Type.Integer()),
    next_attempt_at: Nullable(DateTime),
    created_at: DateTime,
    updated_at: DateTime,
  }),
  Type.Object({ tracked_object: RelOne, customer: RelOne }),
  'A request to track one number at one carrier.',
);

export function serializeTrackingRequest(tr: TrackingRequest): Resource {
  return {
    id: tr.id,
    type: 'tracking_request',
    attributes: {
      request_number: tr.request_number,
      request_type: tr.request_type,
      scac: tr.scac,
      ref_numbers: tr.ref_numbers,
      tags: tr.shipment_tags,
      shipment_tags: tr.shipment_tags,
      status: tr.status,
      failed_reason: tr.failed_reason,
      is_retrying: tr.is_retrying,
      retry_count: tr.retry_count,
      // Beyond the reference: when the engine will look again (null when nothing is planned).
      next_attempt_at: ['pending', 'awaiting_manifest'].includes(tr.status) ? iso(tr.next_attempt_at) : null,
      created_at: iso(tr.created_at),
      updated_at: iso(tr.updated_at),
    },
    relationships: {
      tracked_object: one('shipment', tr.shipment_id),
      customer: one('party', tr.customer_id),
    },
    links: selfLink(`/tracking_requests/${tr.id}`),
  };
}
