import { Type } from 'typebox';
import { CHANGE_SOURCES } from '../domain-events/record.ts';
import { raw } from '../members/json-text.ts';
import { columns, computed, declare } from '../members/kit.ts';
import type { ChangeRow } from './queries.ts';

// The change resource, member for member (src/members/kit.ts): one attribute of a shipment or
// container that changed, with its value before and after, when the product observed it and where
// the change came from. Read from the engine's domain events (queries.ts); it has no address of
// its own (no links.self) and is served only in lists.

const c = columns<ChangeRow, unknown>();
const Value = Type.Unknown({ description: 'The value as the resource serves it (null when unknown).' });

export const CHANGE = declare({
  type: 'change',
  description: 'A change of one tracked attribute of a shipment or container.',
  table: 'domain_events',
  collection: null,
  attributes: [
    c.text('attribute', {
      notNull: true,
      schema: { description: 'The attribute of the shipment or container.' },
    }),
    computed({
      name: 'before',
      schema: Value,
      js: (r: ChangeRow) => r.before,
      sql: (t) => raw(`${t}.before`),
      reads: ['before'],
    }),
    computed({
      name: 'after',
      schema: Value,
      js: (r: ChangeRow) => r.after,
      sql: (t) => raw(`${t}.after`),
      reads: ['after'],
    }),
    c.time('observed_at', {
      notNull: true,
      schema: { description: 'When the product learnt of the change.' },
    }),
    c.text('source', { notNull: true, schema: { enum: [...CHANGE_SOURCES] } }),
    c.text('event', { notNull: true, schema: { description: 'The domain event that recorded the change.' } }),
  ],
  relationships: [
    c.toOne('shipment', 'shipment', 'shipment_id'),
    c.toOne('container', 'container', 'container_id'),
  ],
});
