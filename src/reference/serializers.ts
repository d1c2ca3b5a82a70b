import { Type } from 'typebox';
import { many, one, type Resource, selfLink } from '../jsonapi/resource.ts';
import { Identifier, Nullable, RelOne, resourceSchema } from '../jsonapi/schemas.ts';
import { schemaOf, serializerOf } from '../members/kit.ts';
import { type Port, portByLocode, type Terminal, terminalById, terminalsAtPort } from './data.ts';
import { PROVIDED_FACTS, providedData } from './terminal-coverage.ts';
import { VESSEL } from './vessel-members.ts';
import type { Vessel } from './vessels.ts';

// Reference resources: ports, metro areas, terminals (shipped data, in memory) and vessels
// (shared facts in the `vessels` table). None of them belongs to an account.

const placeAttributes = {
  name: Type.String(),
  code: Type.String({ description: 'UN/LOCODE' }),
  state_abbr: Nullable(Type.String()),
  city: Nullable(Type.String()),
  country_code: Type.String(),
  time_zone: Nullable(Type.String({ description: 'IANA tz' })),
  latitude: Nullable(Type.Number()),
  longitude: Nullable(Type.Number()),
};

// The live service repeats a port's and a terminal's id among its attributes and lists a port's
// terminals (docs/api-notes.md, "Live over document").
export const PortSchema = resourceSchema(
  'port',
  Type.Object({ id: Type.String(), ...placeAttributes }),
  Type.Object({ terminals: Type.Object({ data: Type.Array(Identifier) }) }),
  'A port (UN/LOCODE).',
);

const ProvidedData = Type.Object(
  Object.fromEntries(
    PROVIDED_FACTS.flatMap((f) => [
      [f, Type.Boolean()],
      [`${f}_notes`, Type.String()],
    ]),
  ),
  {
    description: 'Which terminal facts this product gets at the terminal (a configured terminal connection).',
  },
);

export const MetroAreaSchema = resourceSchema(
  'metro_area',
  Type.Object(placeAttributes),
  null,
  'A metro area. Served from the same UN/LOCODE rows as ports, with the same id.',
);

export const TerminalSchema = resourceSchema(
  'terminal',
  Type.Object({
    id: Type.String(),
    name: Type.String(),
    nickname: Nullable(Type.String()),
    firms_code: Nullable(Type.String()),
    smdg_code: Nullable(Type.String()),
    bic_facility_code: Nullable(Type.String()),
    street: Nullable(Type.String()),
    city: Nullable(Type.String()),
    state: Nullable(Type.String()),
    state_abbr: Nullable(Type.String()),
    zip: Nullable(Type.String()),
    country: Nullable(Type.String()),
    provided_data: ProvidedData,
    facility_type: Type.String({ enum: ['ocean_terminal'] }),
  }),
  Type.Object({ port: RelOne }),
);

/** A vessel's attributes before its positions; maps' vessel_with_positions shares them. */
export const vesselAttributes = Object.fromEntries(
  VESSEL.attributes.filter((m) => !m.name.startsWith('position')).map((m) => [m.name, m.schema]),
);

/** Declared member by member in vessel-members.ts. */
export const VesselSchema = schemaOf(VESSEL);

function placeAttrs(p: Port): Record<string, unknown> {
  return {
    name: p.name,
    code: p.locode,
    state_abbr: p.state_abbr,
    city: null,
    country_code: p.country_code,
    time_zone: p.time_zone,
    latitude: p.latitude,
    longitude: p.longitude,
  };
}

export function serializePort(p: Port): Resource {
  return {
    id: p.id,
    type: 'port',
    attributes: { id: p.id, ...placeAttrs(p) },
    relationships: {
      terminals: many(
        'terminal',
        terminalsAtPort(p.locode).map((t) => t.id),
      ),
    },
    links: selfLink(`/ports/${p.id}`),
  };
}

/** A metro area is a ports.csv row seen as a metro area: same id and attributes as the port. */
export function serializeMetroArea(p: Port): Resource {
  return { id: p.id, type: 'metro_area', attributes: placeAttrs(p), links: selfLink(`/metro_areas/${p.id}`) };
}

export function serializeTerminal(t: Terminal): Resource {
  return {
    id: t.id,
    type: 'terminal',
    attributes: {
      id: t.id,
      name: t.name,
      nickname: t.nickname,
      firms_code: t.firms_code,
      smdg_code: t.smdg_code,
      bic_facility_code: null,
      street: null,
      city: null,
      state: null,
      state_abbr: null,
      zip: null,
      country: null,
      provided_data: providedData(t),
      // The shipped terminal list is SMDG's: ocean terminals.
      facility_type: 'ocean_terminal',
    },
    relationships: { port: one('port', portByLocode(t.port_locode)?.id) },
    links: selfLink(`/terminals/${t.id}`),
  };
}

const vessel = serializerOf(VESSEL);
export const serializeVessel = (v: Vessel): Resource => vessel(v, undefined);

/** Port resources for the given UN/LOCODEs (unknown ones are skipped). */
export function portResources(locodes: Array<string | null | undefined>): Resource[] {
  const out: Resource[] = [];
  const seen = new Set<string>();
  for (const l of locodes) {
    if (!l || seen.has(l)) continue;
    seen.add(l);
    const p = portByLocode(l);
    if (p) out.push(serializePort(p));
  }
  return out;
}

/** Port id of a UN/LOCODE, or null when it is not in the reference data. */
export function portIdOf(locode: string | null | undefined): string | null {
  return locode ? (portByLocode(locode)?.id ?? null) : null;
}

/** Terminal resources for the given ids (unknown ones are skipped). */
export function terminalResources(ids: Array<string | null | undefined>): Resource[] {
  const out: Resource[] = [];
  const seen = new Set<string>();
  for (const id of ids) {
    if (!id || seen.has(id)) continue;
    seen.add(id);
    const t = terminalById(id);
    if (t) out.push(serializeTerminal(t));
  }
  return out;
}
