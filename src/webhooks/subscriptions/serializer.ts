import { Type } from 'typebox';
import { iso, type Resource, selfLink } from '../../jsonapi/resource.ts';
import { DateTime, Nullable, resourceSchema } from '../../jsonapi/schemas.ts';
import { EVENT_CATEGORIES } from '../catalogue.ts';
import type { Webhook } from './queries.ts';

export const HeaderSchema = Type.Object({ name: Type.String(), value: Type.String() });

export const WebhookSchema = resourceSchema(
  'webhook',
  Type.Object({
    url: Type.String({ description: 'Where notifications are POSTed.' }),
    events: Type.Array(Type.String(), { description: 'The events this webhook receives.' }),
    active: Type.Boolean({ description: 'Whether notifications are delivered; set true to reactivate.' }),
    headers: Type.Array(HeaderSchema, { description: 'Extra headers sent with every delivery.' }),
    secret: Type.String({ description: 'Signs every delivery (see docs/webhook-signatures.md).' }),
    description: Nullable(Type.String()),
    created_at: DateTime,
    updated_at: DateTime,
    // Beyond the reference: delivery health and the deactivation rule.
    deactivated_at: Nullable(DateTime),
    deactivation_reason: Nullable(
      Type.String({ description: 'repeated_failures, or gone_410 when the receiver answered 410 Gone.' }),
    ),
    last_success_at: Nullable(DateTime),
    last_failure_at: Nullable(DateTime),
    failing_since: Nullable(
      Type.String({ format: 'date-time', description: 'First failure since the last success.' }),
    ),
    previous_secret_expires_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'After a secret rotation: until when the previous secret also signs.',
      }),
    ),
  }),
  null,
  'A subscription: which events are POSTed to which URL.',
);

export function serializeWebhook(w: Webhook, now: Date = new Date()): Resource {
  const graceUntil =
    w.previous_secret_expires_at && w.previous_secret_expires_at > now ? w.previous_secret_expires_at : null;
  return {
    id: w.id,
    type: 'webhook',
    attributes: {
      url: w.url,
      events: w.events,
      active: w.active,
      headers: w.headers ?? [],
      secret: w.secret,
      description: w.description,
      created_at: iso(w.created_at),
      updated_at: iso(w.updated_at),
      deactivated_at: iso(w.deactivated_at),
      deactivation_reason: w.deactivation_reason,
      last_success_at: iso(w.last_success_at),
      last_failure_at: iso(w.last_failure_at),
      failing_since: iso(w.failing_since),
      previous_secret_expires_at: iso(graceUntil),
    },
    links: selfLink(`/webhooks/${w.id}`),
  };
}

export const EventCategorySchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('webhook_event_category'),
  attributes: Type.Object({
    name: Type.String(),
    events: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
  }),
});

/** The catalogue as `webhook_event_category` resources. */
export function serializeEventCategories() {
  return EVENT_CATEGORIES.map((c) => ({
    id: c.id,
    type: 'webhook_event_category' as const,
    attributes: { name: c.name, events: c.events.map((e) => ({ name: e.name, description: e.description })) },
  }));
}
