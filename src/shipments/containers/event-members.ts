import type { Selectable } from 'kysely';
import { Type } from 'typebox';
import type { TransportEventsTable } from '../../db/schema.ts';
import { Nullable } from '../../jsonapi/schemas.ts';
import { alwaysNull, columns, declare, portRelation } from '../../members/kit.ts';
import { referenceOf } from '../../reference/markers.ts';

// The transport event resource, member for member (src/members/kit.ts). It reads nothing but its
// own row, so the whole resource (its `data` form) is stored in the row (`e` its alias).

const e = columns<Selectable<TransportEventsTable>, unknown>();

export const TRANSPORT_EVENT = declare({
  type: 'transport_event',
  description: 'One normalized milestone of a container.',
  table: 'transport_events',
  collection: 'transport_events',
  stored: 'whole',
  attributes: [
    e.text('event', { notNull: true }),
    e.time('created_at', { notNull: true }),
    e.text('voyage_number'),
    e.time('timestamp'),
    e.text('timezone', { schema: { description: 'IANA tz' } }),
    e.text('location_locode'),
    e.text('data_source', { notNull: true, schema: { enum: ['shipping_line', 'terminal', 'ais'] } }),
    // Set when later data showed this reading was wrong: kept for the record, not counted.
    e.time('invalidated_at'),
    // The live service's new value of a *.changed event; those are webhooks here, not transport
    // events, so a transport event of ours has none.
    alwaysNull('value', Nullable(Type.String()), true),
  ],
  relationships: [
    e.toOne('shipment', 'shipment', 'shipment_id'),
    e.toOne('container', 'container', 'container_id'),
    portRelation('location', referenceOf, { field: 'location_locode', sql: (t) => `${t}.location_locode` }),
    e.toOne('terminal', 'terminal', 'terminal_id'),
    e.toOne('vessel', 'vessel', 'vessel_id'),
  ],
});
