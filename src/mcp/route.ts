// A container's journey as port calls and legs, worked out from the API's shipment and transport
// event resources (get_container_route). Pure: no I/O.

type Attrs = Record<string, unknown>;

export interface RouteEvent {
  event: string;
  timestamp: string | null;
  locode: string | null;
  placeName: string | null;
  latitude: number | null;
  longitude: number | null;
  vesselName: string | null;
  vesselImo: string | null;
  voyage: string | null;
}

export interface PortCall {
  sequence: number;
  locode: string;
  name: string | null;
  role: 'port_of_lading' | 'transshipment' | 'port_of_discharge' | 'destination' | 'other';
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

const ARRIVALS =
  /(vessel_arrived|transshipment_arrived|feeder_arrived|rail_arrived|arrived_at_inland_destination|vessel_berthed)$/;
const DEPARTURES = /(vessel_departed|transshipment_departed|feeder_departed|rail_departed)$/;
const LOADINGS = /(vessel_loaded|transshipment_loaded|feeder_loaded|rail_loaded)$/;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** Planned ports first (POL, transshipments, POD, destination), merged with the ports events name. */
function orderPorts(planned: string[], observed: string[]): string[] {
  const order = [...new Set(observed)];
  for (const [i, locode] of planned.entries()) {
    if (order.includes(locode)) continue;
    // Before the next planned port the events have reached; at the end when none has been.
    const next = planned.slice(i + 1).find((p) => order.includes(p));
    if (next) order.splice(order.indexOf(next), 0, locode);
    else order.push(locode);
  }
  return order;
}

export function buildRoute(shipment: Attrs, events: RouteEvent[]): { ports: PortCall[]; legs: Leg[] } {
  const pol = str(shipment.port_of_lading_locode);
  const pod = str(shipment.port_of_discharge_locode);
  const dest = str(shipment.destination_locode);
  const ts = Array.isArray(shipment.transshipment_locodes)
    ? (shipment.transshipment_locodes as string[])
    : [];
  const planned = [...new Set([pol, ...ts, pod, dest].filter((p): p is string => Boolean(p)))];
  const sorted = [...events].sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)));
  const locodes = orderPorts(
    planned,
    sorted.map((e) => e.locode).filter((l): l is string => Boolean(l)),
  );

  const names = new Map<string, { name: string | null; lat: number | null; lon: number | null }>();
  for (const e of sorted)
    if (e.locode) names.set(e.locode, { name: e.placeName, lat: e.latitude, lon: e.longitude });
  const nameOf = (locode: string) =>
    names.get(locode)?.name ??
    (locode === pol
      ? str(shipment.port_of_lading_name)
      : locode === pod
        ? str(shipment.port_of_discharge_name)
        : locode === dest
          ? str(shipment.destination_name)
          : null);

  let transshipments = 0;
  const ports: PortCall[] = locodes.map((locode, i) => {
    const at = sorted.filter((e) => e.locode === locode);
    const role: PortCall['role'] =
      locode === pol
        ? 'port_of_lading'
        : locode === pod
          ? 'port_of_discharge'
          : locode === dest
            ? 'destination'
            : ts.includes(locode)
              ? 'transshipment'
              : 'other';
    const label =
      role === 'port_of_lading'
        ? 'POL'
        : role === 'port_of_discharge'
          ? 'POD'
          : role === 'destination'
            ? 'DEST'
            : role === 'transshipment'
              ? `TS${++transshipments}`
              : 'CALL';
    const arrived = at.find((e) => ARRIVALS.test(e.event))?.timestamp ?? null;
    const departed = at.filter((e) => DEPARTURES.test(e.event)).at(-1)?.timestamp ?? null;
    return {
      sequence: i + 1,
      locode,
      name: nameOf(locode),
      role,
      label,
      latitude: names.get(locode)?.lat ?? null,
      longitude: names.get(locode)?.lon ?? null,
      eta_at:
        role === 'port_of_discharge'
          ? str(shipment.pod_eta_at)
          : role === 'destination'
            ? str(shipment.destination_eta_at)
            : null,
      ata_at:
        arrived ??
        (role === 'port_of_discharge'
          ? str(shipment.pod_ata_at)
          : role === 'destination'
            ? str(shipment.destination_ata_at)
            : null),
      etd_at: role === 'port_of_lading' ? str(shipment.pol_etd_at) : null,
      atd_at: departed ?? (role === 'port_of_lading' ? str(shipment.pol_atd_at) : null),
    };
  });

  const legs: Leg[] = [];
  for (let i = 0; i + 1 < ports.length; i++) {
    const from = ports[i]!;
    const to = ports[i + 1]!;
    const outbound = sorted.filter(
      (e) => e.locode === from.locode && (DEPARTURES.test(e.event) || LOADINGS.test(e.event)),
    );
    const inbound = sorted.filter((e) => e.locode === to.locode && ARRIVALS.test(e.event));
    const carrier =
      [...outbound].reverse().find((e) => e.vesselName || e.voyage) ?? inbound.find((e) => e.vesselName);
    const lastLeg = to.role === 'port_of_discharge';
    legs.push({
      from: from.locode,
      to: to.locode,
      mode: carrier && /rail_/.test(carrier.event) ? 'rail' : 'vessel',
      vessel_name: carrier?.vesselName ?? (lastLeg ? str(shipment.pod_vessel_name) : null),
      vessel_imo: carrier?.vesselImo ?? (lastLeg ? str(shipment.pod_vessel_imo) : null),
      voyage_number: carrier?.voyage ?? (lastLeg ? str(shipment.pod_voyage_number) : null),
      etd_at: from.etd_at,
      atd_at: from.atd_at,
      eta_at: to.eta_at,
      ata_at: to.ata_at,
    });
  }
  return { ports, legs };
}
