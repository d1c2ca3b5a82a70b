import { type Doc, includedIndex } from './api.ts';

// get_container_route's port calls and legs, read from GET /v2/containers/{id}/route (the
// journey is worked out once, by src/routing/journey.ts). What the route body does not say,
// each call's role, comes from the shipment's planned ports. Pure: no I/O.

type Attrs = Record<string, unknown>;

export interface PortCall {
  sequence: number;
  locode: string;
  name: string | null;
  role: 'port_of_lading' | 'transshipment' | 'port_of_discharge' | 'destination';
  label: string;
  latitude: number | null;
  longitude: number | null;
  eta_at: string | null;
  ata_at: string | null;
  etd_at: string | null;
  atd_at: string | null;
}

export interface Leg {
  from: string;
  to: string;
  mode: 'vessel' | 'rail';
  vessel_name: string | null;
  vessel_imo: string | null;
  voyage_number: string | null;
  etd_at: string | null;
  atd_at: string | null;
  eta_at: string | null;
  ata_at: string | null;
}

/** The include the route request must ask for. */
export const ROUTE_INCLUDE = 'route_location,port,vessel';

/** Port calls and legs of a route body (fetched with ROUTE_INCLUDE) for the given shipment. */
export function routeOf(body: Doc, shipment: Attrs): { ports: PortCall[]; legs: Leg[] } {
  const index = includedIndex(body);
  const related = (r: Doc['data'], name: string) => {
    const ref = r?.relationships?.[name]?.data;
    return ref ? index.get(`${ref.type}:${ref.id}`) : undefined;
  };
  const refs: Array<{ type: string; id: string }> = body.data?.relationships?.route_locations?.data ?? [];
  const calls = refs.map((r) => index.get(`${r.type}:${r.id}`)).filter(Boolean);
  let ts = 0;
  const ports: PortCall[] = calls.map((c, i) => {
    const port = related(c, 'location')?.attributes ?? {};
    const locode = String(port.code ?? '');
    const role: PortCall['role'] =
      i === 0 && locode === shipment.port_of_lading_locode
        ? 'port_of_lading'
        : locode === shipment.destination_locode && locode !== shipment.port_of_discharge_locode
          ? 'destination'
          : locode === shipment.port_of_discharge_locode
            ? 'port_of_discharge'
            : 'transshipment';
    const label = { port_of_lading: 'POL', port_of_discharge: 'POD', destination: 'DEST' }[role as string];
    const a = c.attributes;
    return {
      sequence: i + 1,
      locode,
      name: port.name ?? null,
      role,
      label: label ?? `TS${++ts}`,
      latitude: port.latitude ?? null,
      longitude: port.longitude ?? null,
      eta_at: a.inbound_eta_at,
      ata_at: a.inbound_ata_at,
      etd_at: a.outbound_etd_at,
      atd_at: a.outbound_atd_at,
    };
  });
  const legs: Leg[] = calls.slice(1).map((to, i) => {
    const from = calls[i];
    const vessel = related(from, 'outbound_vessel')?.attributes;
    return {
      from: ports[i]!.locode,
      to: ports[i + 1]!.locode,
      mode: from.attributes.outbound_mode ?? to.attributes.inbound_mode ?? 'vessel',
      vessel_name: vessel?.name ?? null,
      vessel_imo: vessel?.imo ?? null,
      voyage_number: from.attributes.outbound_voyage_number,
      etd_at: from.attributes.outbound_etd_at,
      atd_at: from.attributes.outbound_atd_at,
      eta_at: to.attributes.inbound_eta_at,
      ata_at: to.attributes.inbound_ata_at,
    };
  });
  return { ports, legs };
}
