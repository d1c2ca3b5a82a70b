import { Type } from 'typebox';
import { iso, one, type Resource, selfLink } from '../../jsonapi/resource.ts';
import { DateTime, Nullable, RelOne, resourceSchema } from '../../jsonapi/schemas.ts';
import type { Attempt, Notification } from './queries.ts';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** JSON:API types a notification's reference_object can have. */
export const REFERENCE_TYPES = [
  'tracking_request',
  'transport_event',
  'estimated_event',
  'container',
  'container_created_event',
  'container_updated_event',
] as const;

const AttemptSchema = Type.Object({
  attempted_at: DateTime,
  status_code: Nullable(Type.Integer({ description: 'null when no answer arrived.' })),
  error: Nullable(Type.String({ description: 'e.g. http_500, timeout, connection_refused.' })),
  duration_ms: Type.Integer(),
  response_excerpt: Type.Optional(
    Nullable(
      Type.String({
        description:
          'Start of the answer body (single notification only); always null for receivers that are not at public addresses (reached through WEBHOOK_ALLOWLIST).',
      }),
    ),
  ),
});

export const NotificationSchema = resourceSchema(
  'webhook_notification',
  Type.Object({
    event: Type.String(),
    delivery_status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
    created_at: DateTime,
    // Beyond the reference: the delivery state and the attempt log.
    attempt_count: Type.Integer({ description: 'Attempts in the current delivery round.' }),
    next_attempt_at: Nullable(DateTime),
    last_attempt_at: Nullable(DateTime),
    delivered_at: Nullable(DateTime),
    attempts: Type.Array(AttemptSchema, { description: 'Every attempt, oldest first.' }),
  }),
  Type.Object({ webhook: RelOne, reference_object: RelOne }),
  'One event for one webhook; its id is the data.id of the delivered body.',
);

export function serializeAttempt(a: Attempt, withExcerpt: boolean): Record<string, unknown> {
  return {
    attempted_at: iso(a.attempted_at),
    status_code: a.status_code,
    error: a.error,
    duration_ms: a.duration_ms,
    ...(withExcerpt ? { response_excerpt: a.response_excerpt ?? null } : {}),
  };
}

export function serializeNotification(n: Notification, attempts: Attempt[], withExcerpt = false): Resource {
  return {
    id: n.id,
    type: 'webhook_notification',
    attributes: {
      event: n.event,
      delivery_status: n.delivery_status,
      created_at: iso(n.created_at),
      attempt_count: n.attempt_count,
      next_attempt_at: n.delivery_status === 'pending' ? iso(n.next_attempt_at) : null,
      last_attempt_at: iso(n.last_attempt_at),
      delivered_at: iso(n.delivered_at),
      attempts: attempts.map((a) => serializeAttempt(a, withExcerpt)),
    },
    relationships: {
      webhook: one('webhook', n.webhook_id),
      reference_object: one(n.reference_type, n.reference_id),
    },
    links: selfLink(`/webhook_notifications/${n.id}`),
  };
}
