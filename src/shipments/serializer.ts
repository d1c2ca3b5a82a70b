import type { Resource } from '../jsonapi/resource.ts';
import { schemaOf, serializerOf } from '../members/kit.ts';
import { SHIPMENT } from './members.ts';
import type { ShipmentRow } from './queries.ts';

// The shipment is declared member by member in members.ts; its schema and serializer are made
// from the declaration.

export { STOP_REASONS } from './members.ts';

export const ShipmentSchema = schemaOf(SHIPMENT);

/** `containerIds`: the shipment's containers, in number order. */
export const serializeShipment: (s: ShipmentRow, containerIds: string[]) => Resource = serializerOf(SHIPMENT);
