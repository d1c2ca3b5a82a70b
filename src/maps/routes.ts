import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { badParameter, notFound } from '../errors.ts';
import { parseInclude } from '../http/jsonapi.ts';
import { errorResponses, IdParams, query } from '../http/schemas.ts';
import { Included } from '../jsonapi/resource.ts';
import { AnyResource } from '../jsonapi/schemas.ts';
import { portResources, serializeVessel, terminalResources } from '../reference/serializers.ts';
import { vesselsByIds } from '../reference/vessels.ts';
import { type AisProvider, noAis } from '../routing/ais.ts';
import { httpAis } from '../routing/ais-http.ts';
import { isUuid } from '../util/uuid.ts';
import {
  PositionsMeta,
  RouteSchema,
  serializeRoute,
  serializeRouteLocation,
  serializeVesselPositions,
  VesselWithPositionsSchema,
} from './serializers.ts';
import { containerMap, loadJourney, type RoutingDeps, vesselFuturePositions } from './service.ts';

// Routing endpoints: a container's map (GeoJSON) and route (JSON:API), and a vessel's future
// positions. Thin: parse, call the service, serialize. docs/routing.md explains the model.

export interface MapRouteOptions {
  ais?: AisProvider;
  now?: () => Date;
}

const ROUTE_INCLUDES = ['route_location', 'port', 'vessel', 'terminal'] as const;

const LonLatPair = Type.Array(Type.Number(), { minItems: 2, maxItems: 2 });
const FeatureSchema = Type.Object({
  type: Type.Literal('Feature'),
  geometry: Type.Object({
    type: Type.Union([Type.Literal('Point'), Type.Literal('LineString')]),
    coordinates: Type.Union([LonLatPair, Type.Array(LonLatPair, { minItems: 2 })]),
  }),
  properties: Type.Object(
    { feature_type: Type.String() },
    {
      additionalProperties: true,
      description:
        'By feature_type: port (portFeatureProperties), current_vessel, past_vessel_locations, estimated_full_legs, estimated_partial_leg, as in the reference document.',
    },
  ),
});
const MapSchema = Type.Object({
  type: Type.Literal('FeatureCollection'),
  features: Type.Array(FeatureSchema),
});

const Coordinate = (what: string) =>
  Type.Optional(
    Type.String({ pattern: '^-?[0-9]+(\\.[0-9]+)?$', description: `Starting ${what} (decimal degrees).` }),
  );
const PortQuery = {
  port_id: Type.Optional(
    Type.String({
      description: "The destination port id. Default: the vessel's next call in your shipments.",
    }),
  ),
  previous_port_id: Type.Optional(
    Type.String({
      description: "The previous port id. Default: the vessel's previous call in your shipments.",
    }),
  ),
};

function coordinate(name: 'latitude' | 'longitude', raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const v = Number(raw);
  const limit = name === 'latitude' ? 90 : 180;
  if (!Number.isFinite(v) || Math.abs(v) > limit)
    throw badParameter(name, `${name} must be a number within ±${limit}.`);
  return v;
}

const POSITIONS_DESCRIPTION =
  'Estimated positions along the sea route from now (or the departure, if the vessel has not sailed) to the port, every minute; passages longer than 2,000 minutes are spaced evenly with at most 2,000 positions (meta.position_step_seconds). The vessel moves at constant speed along straight lon/lat steps between positions, so interpolate linearly. Without port_id and previous_port_id, the leg the vessel is sailing (or will sail next) in your shipments. Every position is estimated from the schedule and the sea route.';

export function mapRoutes(ctx: AppContext, options: MapRouteOptions = {}): FastifyPluginAsyncTypebox {
  const deps: RoutingDeps = {
    db: ctx.database.db,
    ais: options.ais ?? (ctx.config.aisFeedUrl ? httpAis({ baseUrl: ctx.config.aisFeedUrl }) : noAis),
    now: options.now ?? (() => new Date()),
  };

  return async (app) => {
    app.get(
      '/containers/:id/map_geojson',
      {
        schema: {
          tags: ['Containers', 'Routing'],
          summary: 'Get container map GeoJSON',
          description:
            'A GeoJSON FeatureCollection: the ports of the journey with their roles and times, the current vessel position when at sea, past vessel locations, estimated full legs and the estimated partial leg to the next port. Routes follow shipping lanes (docs/routing.md).',
          params: IdParams,
          querystring: query({}),
          response: { 200: MapSchema, ...errorResponses(400, 401, 404, 429) },
        },
      },
      async (request, reply) => {
        if (!isUuid(request.params.id)) throw notFound('No container with this id.');
        const map = await containerMap(deps, request.accountId, request.params.id.toLowerCase());
        reply.type('application/geo+json');
        return map;
      },
    );

    app.get(
      '/containers/:id/route',
      {
        schema: {
          tags: ['Containers', 'Routing'],
          summary: "Get a container's route",
          description:
            'The port calls of the journey in order as route_location resources (included by default), with modes, carriers, voyages and times per side. `include`: route_location, port, vessel, terminal.',
          params: IdParams,
          querystring: query({
            include: Type.Optional(
              Type.String({ description: `Comma-separated: ${ROUTE_INCLUDES.join(', ')}.` }),
            ),
          }),
          response: {
            200: Type.Object({ data: RouteSchema, included: Type.Optional(Type.Array(AnyResource)) }),
            ...errorResponses(400, 401, 404, 429),
          },
        },
      },
      async (request) => {
        const include = parseInclude((request.query as { include?: string }).include, ROUTE_INCLUDES, [
          'route_location',
        ]);
        if (!isUuid(request.params.id)) throw notFound('No container with this id.');
        const id = request.params.id.toLowerCase();
        const { journey, rows } = await loadJourney(deps.db, request.accountId, id);
        const included = new Included();
        if (include.has('route_location'))
          for (const call of journey.calls) included.add(serializeRouteLocation(id, call, rows.updated_at));
        if (include.has('port'))
          for (const p of portResources(journey.calls.map((c) => c.locode))) included.add(p);
        if (include.has('terminal'))
          for (const t of terminalResources(journey.calls.map((c) => c.terminal_id))) included.add(t);
        if (include.has('vessel'))
          for (const v of await vesselsByIds(
            deps.db,
            journey.legs.map((l) => l.vessel_id),
          ))
            included.add(serializeVessel(v));
        return {
          data: serializeRoute(id, rows.shipment_id, journey, null, rows.updated_at),
          included: included.items,
        };
      },
    );

    const positionsResponse = {
      200: Type.Object({
        data: VesselWithPositionsSchema,
        links: Type.Object({ self: Type.String() }),
        meta: PositionsMeta,
      }),
      ...errorResponses(400, 401, 404, 429),
    };

    app.get(
      '/vessels/:id/future_positions',
      {
        schema: {
          tags: ['Vessels', 'Routing'],
          summary: 'Get vessel future positions',
          description: POSITIONS_DESCRIPTION,
          params: IdParams,
          querystring: query(PortQuery),
          response: positionsResponse,
        },
      },
      async (request) => {
        const q = request.query as { port_id?: string; previous_port_id?: string };
        return positions(request.accountId, request.params.id, selfUrl(request), {
          portId: q.port_id,
          previousPortId: q.previous_port_id,
          withCoordinates: false,
        });
      },
    );

    app.get(
      '/vessels/:id/future_positions_with_coordinates',
      {
        schema: {
          tags: ['Vessels', 'Routing'],
          summary: 'Get vessel future positions from coordinates',
          description: `${POSITIONS_DESCRIPTION} Starts at latitude/longitude, by default the vessel's current estimated position.`,
          params: IdParams,
          querystring: query({
            ...PortQuery,
            latitude: Coordinate('latitude'),
            longitude: Coordinate('longitude'),
          }),
          response: positionsResponse,
        },
      },
      async (request) => {
        const q = request.query as {
          port_id?: string;
          previous_port_id?: string;
          latitude?: string;
          longitude?: string;
        };
        const lat = coordinate('latitude', q.latitude);
        const lon = coordinate('longitude', q.longitude);
        if ((lat === undefined) !== (lon === undefined))
          throw badParameter(
            lat === undefined ? 'latitude' : 'longitude',
            'Give both latitude and longitude, or neither.',
          );
        return positions(request.accountId, request.params.id, selfUrl(request), {
          portId: q.port_id,
          previousPortId: q.previous_port_id,
          from: lat !== undefined && lon !== undefined ? [lon, lat] : undefined,
          withCoordinates: true,
        });
      },
    );

    // The reference types links.self as an absolute URI: the configured base URL, else this request's origin.
    const selfUrl = (request: { protocol: string; host: string; url: string }) =>
      `${ctx.baseUrl || `${request.protocol}://${request.host}`}${request.url}`;

    async function positions(
      accountId: string,
      id: string,
      url: string,
      q: Parameters<typeof vesselFuturePositions>[3],
    ) {
      if (!isUuid(id)) throw notFound('No vessel with this id.');
      for (const [name, v] of [
        ['port_id', q.portId],
        ['previous_port_id', q.previousPortId],
      ] as const)
        if (v !== undefined && !isUuid(v)) throw badParameter(name, `${name} must be a port id (UUID).`);
      const result = await vesselFuturePositions(deps, accountId, id.toLowerCase(), q);
      const { data, meta } = serializeVesselPositions(result, `/vessels/${result.vessel.id}`);
      return { data, links: { self: url }, meta };
    }
  };
}
