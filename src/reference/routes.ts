import { Type } from 'typebox';
import { parseDateParam } from '../http/jsonapi.ts';
import { routeModule } from '../http/route-module.ts';
import { errorResponses, IdParams, query } from '../http/schemas.ts';
import {
  MetroAreaSchema,
  PortSchema,
  serializeMetroArea,
  serializePort,
  serializeTerminal,
  serializeVessel,
  TerminalSchema,
  VesselSchema,
} from './serializers.ts';
import { getMetroArea, getPort, getTerminal, getVessel } from './service.ts';

// HTTP <-> service translation for reference data (ports, metro areas, terminals, vessels).

const PositionsQuery = query({
  'show_positions[from_timestamp]': Type.Optional(
    Type.String({ description: 'Accepted for compatibility; no position data is kept (positions is null).' }),
  ),
  'show_positions[to_timestamp]': Type.Optional(
    Type.String({ description: 'Accepted for compatibility; no position data is kept (positions is null).' }),
  ),
});

export const referenceRoutes = routeModule((app, db) => {
  app.get(
    '/ports/:id',
    {
      schema: {
        tags: ['Ports'],
        summary: 'Get a port by id or UN/LOCODE',
        params: IdParams,
        querystring: query({}),
        response: { 200: Type.Object({ data: PortSchema }), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => ({ data: serializePort(getPort(request.params.id)) }),
  );

  app.get(
    '/metro_areas/:id',
    {
      schema: {
        tags: ['Metro Areas'],
        summary: 'Get a metro area by id or UN/LOCODE',
        description:
          'Metro areas are the UN/LOCODE places of the port list, under the same ids as the ports.',
        params: IdParams,
        querystring: query({}),
        response: { 200: Type.Object({ data: MetroAreaSchema }), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => ({ data: serializeMetroArea(getMetroArea(request.params.id)) }),
  );

  app.get(
    '/terminals/:id',
    {
      schema: {
        tags: ['Terminals'],
        summary: 'Get a terminal by id or LOCODE:CODE',
        description: 'By id, or by port UN/LOCODE and SMDG or FIRMS code: `NLRTM:DDE`, `USLAX:Y258`.',
        params: IdParams,
        querystring: query({}),
        response: { 200: Type.Object({ data: TerminalSchema }), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => ({ data: serializeTerminal(getTerminal(request.params.id)) }),
  );

  app.get(
    '/vessels/:id',
    {
      schema: {
        tags: ['Vessels'],
        summary: 'Get a vessel by id or IMO number',
        description:
          'One route for both `/vessels/{id}` and `/vessels/{imo}`: a UUID is an id, 7 digits (optionally prefixed "IMO") an IMO number.',
        params: IdParams,
        querystring: PositionsQuery,
        response: { 200: Type.Object({ data: VesselSchema }), ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request) => {
      // Accepted for compatibility and checked like every date parameter; no positions are kept.
      const qs = request.query as Record<string, string | undefined>;
      parseDateParam(qs, 'show_positions[from_timestamp]');
      parseDateParam(qs, 'show_positions[to_timestamp]');
      return { data: serializeVessel(await getVessel(db, request.params.id)) };
    },
  );
});
