import { Type } from 'typebox';
import { Nullable } from '../jsonapi/schemas.ts';
import { alwaysNull, columns, declare } from '../members/kit.ts';
import type { Vessel } from './vessels.ts';

// The vessel resource, member for member (src/members/kit.ts). It reads nothing but its own row,
// so the whole resource is stored in the row; it has no AIS source, so positions are unknown.

const v = columns<Vessel, unknown>();
const Num = Nullable(Type.Number());

export const VESSEL = declare({
  type: 'vessel',
  table: 'vessels',
  collection: 'vessels',
  stored: 'whole',
  attributes: [
    v.text('name', { notNull: true }),
    v.text('imo'),
    alwaysNull('mmsi', Nullable(Type.String())),
    alwaysNull('latitude', Num),
    alwaysNull('longitude', Num),
    alwaysNull('nautical_speed_knots', Num),
    alwaysNull('navigational_heading_degrees', Num),
    alwaysNull('position_timestamp', Nullable(Type.String())),
    alwaysNull('positions', Nullable(Type.Array(Type.Unknown()))),
  ],
  relationships: null,
});
