import { Type } from 'typebox';
import { iso, many, one, type Resource, selfLink } from '../jsonapi/resource.ts';
import { DateTime, Nullable, RelMany, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import { portByLocode } from '../reference/data.ts';
import { vesselAttributes } from '../reference/serializers.ts';
import type { VesselRef } from '../routing/ais.ts';
import type { Journey, PortCall } from '../routing/journey.ts';
import { uuidV5 } from '../util/uuid.ts';
import type { VesselPositions } from './service.ts';

// JSON:API shapes of the routing endpoints: `route` and `route_location` (the reference's client
// libraries read them from GET /containers/{id}/route) and `vessel` with future positions
// (the reference's vessel_with_positions).

const Mode = Nullable(Type.Union([Type.Literal('vessel'), Type.Literal('rail')]));

export const RouteSchema = resourceSchema(
  'route',
  Type.Object({ created_at: Nullable(DateTime), updated_at: Nullable(DateTime) }),
  Type.Object({ cargo: RelOne, shipment: RelOne, route_locations: RelMany }),
  "A container's journey: its port calls in order (route_locations).",
);

export const RouteLocationSchema = resourceSchema(
  'route_location',
  Type.Object({
    inbound_mode: Mode,
    outbound_mode: Mode,
    inbound_scac: Nullable(Type.String()),
    outbound_scac: Nullable(Type.String()),
    inbound_voyage_number: Nullable(Type.String()),
    outbound_voyage_number: Nullable(Type.String()),
    inbound_eta_at: Nullable(DateTime),
    inbound_ata_at: Nullable(DateTime),
    outbound_etd_at: Nullable(DateTime),
    outbound_atd_at: Nullable(DateTime),
    created_at: Nullable(DateTime),
    updated_at: Nullable(DateTime),
  }),
  Type.Object({
    location: RelOne,
    facility: RelOne,
    inbound_vessel: RelOne,
    outbound_vessel: RelOne,
    route: RelOne,
  }),
  'One port call of a route, in journey order.',
);

/** Stable ids: the same container always has the same route and call ids. */
export const routeId = (containerId: string) => uuidV5(`route:${containerId}`);
const callId = (containerId: string, call: PortCall) =>
  uuidV5(`route_location:${containerId}:${call.sequence}:${call.locode}`);

export function serializeRoute(
  containerId: string,
  shipmentId: string,
  journey: Journey,
  createdAt: Date | null,
  updatedAt: Date | null,
): Resource {
  return {
    id: routeId(containerId),
    type: 'route',
    attributes: { created_at: iso(createdAt), updated_at: iso(updatedAt) },
    relationships: {
      cargo: one('container', containerId),
      shipment: one('shipment', shipmentId),
      route_locations: many(
        'route_location',
        journey.calls.map((c) => callId(containerId, c)),
      ),
    },
    links: selfLink(`/containers/${containerId}/route`),
  };
}

export function serializeRouteLocation(
  containerId: string,
  call: PortCall,
  updatedAt: Date | null,
): Resource {
  const id = callId(containerId, call);
  return {
    id,
    type: 'route_location',
    attributes: {
      inbound_mode: call.inbound.mode,
      outbound_mode: call.outbound.mode,
      inbound_scac: call.inbound.scac,
      outbound_scac: call.outbound.scac,
      inbound_voyage_number: call.inbound.voyage_number,
      outbound_voyage_number: call.outbound.voyage_number,
      inbound_eta_at: iso(call.inbound.estimated),
      inbound_ata_at: iso(call.inbound.actual),
      outbound_etd_at: iso(call.outbound.estimated),
      outbound_atd_at: iso(call.outbound.actual),
      created_at: null,
      updated_at: iso(updatedAt),
    },
    relationships: {
      location: one('port', portByLocode(call.locode)?.id),
      facility: one('terminal', call.terminal_id),
      inbound_vessel: one('vessel', call.inbound.vessel_id),
      outbound_vessel: one('vessel', call.outbound.vessel_id),
      route: one('route', routeId(containerId)),
    },
    links: selfLink(`/containers/${containerId}/route`),
  };
}

const Position = Type.Object({
  latitude: Type.Number(),
  longitude: Type.Number(),
  heading: Nullable(Type.Number()),
  timestamp: DateTime,
  estimated: Type.Boolean(),
});

export const VesselWithPositionsSchema = resourceSchema(
  'vessel',
  Type.Object({
    ...vesselAttributes,
    position_timestamp: Nullable(DateTime),
    positions: Type.Array(Position),
  }),
  null,
  'A vessel with its estimated positions from now to the port (vessel_with_positions).',
);

export const PositionsMeta = Type.Object({
  position_step_seconds: Type.Integer({ description: 'Time between consecutive positions.' }),
  distance_nm: Type.Number({ description: 'Sea distance covered by the positions, nautical miles.' }),
  previous_port_id: Type.String(),
  port_id: Type.String(),
});

export interface PositionsMetaValue {
  position_step_seconds: number;
  distance_nm: number;
  previous_port_id: string;
  port_id: string;
}

export function serializeVesselPositions(
  v: VesselPositions,
  self: string,
): { data: Resource; meta: PositionsMetaValue } {
  const vessel: VesselRef = v.vessel;
  return {
    data: {
      id: vessel.id,
      type: 'vessel',
      attributes: {
        name: vessel.name,
        imo: vessel.imo,
        mmsi: null,
        latitude: v.current ? v.current.point[1] : null,
        longitude: v.current ? v.current.point[0] : null,
        nautical_speed_knots: v.current?.speedKnots ?? null,
        navigational_heading_degrees: v.current?.heading ?? null,
        position_timestamp: iso(v.current?.at),
        positions: v.positions.map((p) => ({
          latitude: p.point[1],
          longitude: p.point[0],
          heading: p.heading,
          timestamp: iso(p.at),
          estimated: true,
        })),
      },
      links: selfLink(self),
    },
    meta: {
      position_step_seconds: Math.round(v.stepMs / 1000),
      distance_nm: Math.round(v.distanceNm * 10) / 10,
      previous_port_id: v.previousPort.id,
      port_id: v.port.id,
    },
  };
}
