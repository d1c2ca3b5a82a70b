import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { notFound } from '../http/errors.ts';
import { parseDateParam } from '../http/jsonapi.ts';
import { errorResponses, IdParams, query } from '../http/schemas.ts';
import { isUuid } from '../util/uuid.ts';
import { allTerminals, type Port, portById, portByLocode, type Terminal, terminalById } from './data.ts';
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
import { findVessel } from './vessels.ts';

// Reference data: the same for every account, so no account filter (authentication still applies).

/** A port by id or UN/LOCODE (case-insensitive, inner spaces ignored: "NL RTM"). */
export function findPort(idOrLocode: string): Port | undefined {
  if (isUuid(idOrLocode)) return portById(idOrLocode.toLowerCase());
  const locode = idOrLocode.replace(/\s+/g, '').toUpperCase();
  return /^[A-Z]{2}[A-Z0-9]{3}$/.test(locode) ? portByLocode(locode) : undefined;
}

/**
 * A terminal by id, or by `LOCODE:CODE` where CODE is the SMDG code or the FIRMS code
 * (case-insensitive): `NLRTM:DDE`, `USLAX:Y258`.
 */
export function findTerminal(key: string): Terminal | undefined {
  if (isUuid(key)) return terminalById(key.toLowerCase());
  const m = /^([A-Za-z]{2}[A-Za-z0-9]{3}):(.+)$/.exec(key.trim());
  if (!m) return undefined;
  const locode = m[1]!.toUpperCase();
  const code = m[2]!.trim().toUpperCase();
  const atPort = allTerminals().filter((t) => t.port_locode === locode);
  return (
    atPort.find((t) => t.smdg_code?.toUpperCase() === code) ??
    atPort.find((t) => t.firms_code?.toUpperCase() === code)
  );
}

const PositionsQuery = query({
  'show_positions[from_timestamp]': Type.Optional(
    Type.String({ description: 'Accepted for compatibility; no position data is kept (positions is null).' }),
  ),
  'show_positions[to_timestamp]': Type.Optional(
    Type.String({ description: 'Accepted for compatibility; no position data is kept (positions is null).' }),
  ),
});

export function referenceRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  const db = ctx.database.db;
  return async (app) => {
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
      async (request) => {
        const port = findPort(request.params.id);
        if (!port) throw notFound('No port with this id or UN/LOCODE.');
        return { data: serializePort(port) };
      },
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
      async (request) => {
        const port = findPort(request.params.id);
        if (!port) throw notFound('No metro area with this id or UN/LOCODE.');
        return { data: serializeMetroArea(port) };
      },
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
      async (request) => {
        const terminal = findTerminal(request.params.id);
        if (!terminal) throw notFound('No terminal with this id or LOCODE:CODE.');
        return { data: serializeTerminal(terminal) };
      },
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
        const qs = request.query as Record<string, string | undefined>;
        parseDateParam(qs, 'show_positions[from_timestamp]');
        parseDateParam(qs, 'show_positions[to_timestamp]');
        const raw = request.params.id.trim();
        const imo = /^(?:IMO)?\s*(\d{7})$/i.exec(raw)?.[1];
        const vessel = isUuid(raw)
          ? await findVessel(db, { id: raw.toLowerCase() })
          : imo
            ? await findVessel(db, { imo })
            : undefined;
        if (!vessel) throw notFound('No vessel with this id or IMO number.');
        return { data: serializeVessel(vessel) };
      },
    );
  };
}
