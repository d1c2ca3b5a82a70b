import { Type } from 'typebox';
import { lit } from '../members/json-text.ts';
import { columns, computed, declare } from '../members/kit.ts';
import { EVENT_NAMES } from '../webhooks/catalogue.ts';
import type { AlertRule } from './queries.ts';

// The alert rule resource, member for member (src/members/kit.ts). Its body is built only by the
// JavaScript serializer (no SQL document), so the SQL side of the computed member is never used.

const c = columns<AlertRule, unknown>();

export const SCHEDULES = ['immediate', 'daily'] as const;

const FilterSchema = Type.Object(
  {
    tags: Type.Array(Type.String(), { description: 'Only shipments with at least one of these tags.' }),
    custom_fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      description:
        'Only shipments whose custom fields (by slug) hold these values (a multi-choice field: one of its values).',
    }),
  },
  { description: 'Which shipments the rule is about; empty: every shipment of the account.' },
);

export const ALERT_RULE = declare({
  type: 'alert_rule',
  description: 'An alert rule: which events are e-mailed to which addresses, at once or as a daily digest.',
  table: 'alert_rules',
  collection: 'alert_rules',
  attributes: [
    c.texts('events', {
      notNull: true,
      schema: { description: `Event names of GET /v2/webhooks/events (${EVENT_NAMES.length} in all).` },
    }),
    c.texts('recipients', { notNull: true, schema: { description: 'The e-mail addresses alerted.' } }),
    c.text('schedule', { notNull: true, schema: { enum: [...SCHEDULES] } }),
    c.text('daily_at', {
      schema: { description: 'HH:MM in time_zone: when a daily digest is sent (daily rules only).' },
    }),
    c.text('time_zone', { notNull: true, schema: { description: 'IANA time zone of daily_at.' } }),
    computed({
      name: 'filter',
      schema: FilterSchema,
      js: (r: AlertRule) => ({ tags: r.filter_tags, custom_fields: r.filter_custom_fields }),
      sql: () => lit('null'),
      reads: ['filter_tags', 'filter_custom_fields'],
    }),
    c.time('next_digest_at', {
      schema: { description: 'When the next digest is gathered (daily rules).' },
    }),
    c.time('created_at', { notNull: true }),
    c.time('updated_at', { notNull: true }),
  ],
  relationships: null,
});
