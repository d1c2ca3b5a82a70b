import type { Selectable } from 'kysely';
import { Type } from 'typebox';
import type { TrackingRequestsTable } from '../db/schema.ts';
import { iso } from '../jsonapi/resource.ts';
import { DateTime, Nullable } from '../jsonapi/schemas.ts';
import { time } from '../members/json-text.ts';
import { columns, computed, declare } from '../members/kit.ts';

// The tracking request resource, member for member (src/members/kit.ts). In SQL `tr` is its row.

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
export const REQUEST_TYPES = ['bill_of_lading', 'booking_number', 'container'] as const;

type Source = Selectable<TrackingRequestsTable>;
const tr = columns<Source, unknown>();
const literals = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));

// Beyond the reference: when the engine will look again (null when nothing is planned).
const PLANNED = ['pending', 'awaiting_manifest'];

export const TRACKING_REQUEST = declare({
  type: 'tracking_request',
  description: 'A request to track one number at one carrier.',
  table: 'tracking_requests',
  collection: 'tracking_requests',
  attributes: [
    tr.text('request_number', { notNull: true }),
    tr.text('request_type', { notNull: true, as: literals(REQUEST_TYPES) }),
    tr.text('scac', { schema: { description: 'Null until auto_detect_vocc_scac has decided it.' } }),
    tr.texts('ref_numbers', { notNull: true }),
    tr.texts('shipment_tags', { name: 'tags', notNull: true }),
    tr.texts('shipment_tags', { notNull: true }),
    tr.text('status', { notNull: true, as: literals(STATUSES) }),
    tr.text('failed_reason', { schema: { enum: [...FAILED_REASONS] } }),
    tr.bool('is_retrying', { notNull: true }),
    tr.integer('retry_count'),
    computed({
      name: 'next_attempt_at',
      schema: Nullable(DateTime),
      js: (r: Source) => (PLANNED.includes(r.status) ? iso(r.next_attempt_at) : null),
      sql: (t) =>
        time(`case when ${t}.status in ('pending', 'awaiting_manifest') then ${t}.next_attempt_at end`),
      reads: ['status', 'next_attempt_at'],
    }),
    tr.time('created_at', { notNull: true }),
    tr.time('updated_at', { notNull: true }),
  ],
  relationships: [
    tr.toOne('tracked_object', 'shipment', 'shipment_id'),
    tr.toOne('customer', 'party', 'customer_id'),
  ],
});
