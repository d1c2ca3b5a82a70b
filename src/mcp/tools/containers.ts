import { Type } from 'typebox';
import { type ApiCaller, getDoc, includedIndex, query, ToolError } from '../api.ts';
import { containerLines, eventLine, flat, place, shipmentLines, time } from '../format.ts';
import { ROUTE_INCLUDE, routeOf } from '../route.ts';
import { Id, Intent, loadEvents, type Tool } from './tool.ts';

const CONTAINER_INCLUDES = ['shipment', 'pod_terminal', 'transport_events'] as const;

async function containerWithShipment(api: ApiCaller, id: string, include: string[]) {
  const doc = await getDoc(
    api,
    `/containers/${encodeURIComponent(id)}${query({ include: [...new Set(['shipment', ...include])].join(',') })}`,
  );
  const index = includedIndex(doc);
  const ref = doc.data.relationships?.shipment?.data;
  const shipment = ref ? index.get(`shipment:${ref.id}`) : undefined;
  return { doc, index, shipment };
}

export const getContainer: Tool = {
  name: 'get_container',
  title: 'Get a container',
  description:
    'A container by id: status, milestones (arrival, discharge, pickup, empty return), terminal availability, holds, last free day, and a summary of its shipment. include adds the POD terminal and the transport events.',
  input: Type.Object({
    id: Id('container'),
    include: Type.Optional(
      Type.Array(Type.Union(CONTAINER_INCLUDES.map((i) => Type.Literal(i))), {
        description: 'Related data to add: shipment, pod_terminal, transport_events.',
      }),
    ),
    intent: Intent,
  }),
  async run(api, args: { id: string; include?: string[] }) {
    const include = args.include ?? [];
    const { doc, index, shipment } = await containerWithShipment(api, args.id, include);
    const c = doc.data;
    const lines = containerLines(c.attributes);
    if (shipment) lines.push('', ...shipmentLines(shipment.attributes), `  Shipment id: ${shipment.id}`);
    const terminalRef = c.relationships?.pod_terminal?.data;
    const terminal = terminalRef ? index.get(`terminal:${terminalRef.id}`) : undefined;
    if (terminal) lines.push(`  POD terminal: ${terminal.attributes.name}`);
    const events = (doc.included ?? []).filter((r) => r.type === 'transport_event');
    if (include.includes('transport_events')) {
      lines.push('', `Transport events (${events.length}):`);
      for (const e of events)
        lines.push(
          `  ${eventLine({ event: e.attributes.event, timestamp: e.attributes.timestamp, place: e.attributes.location_locode ?? '—', voyage: e.attributes.voyage_number })}`,
        );
    }
    return {
      text: lines.join('\n'),
      data: {
        container: flat(c),
        shipment: shipment ? flat(shipment) : null,
        ...(terminal ? { pod_terminal: flat(terminal) } : {}),
        ...(include.includes('transport_events') ? { transport_events: events.map(flat) } : {}),
      },
    };
  },
};

export const getContainerTransportEvents: Tool = {
  name: 'get_container_transport_events',
  title: "A container's event timeline",
  description:
    "The container's transport events in time order (empty out, gate in, loaded, departed, transshipment, arrived, discharged, picked up, empty returned…) with places, vessels and voyages.",
  input: Type.Object({ id: Id('container'), intent: Intent }),
  async run(api, args: { id: string }) {
    const { events } = await loadEvents(api, args.id);
    const sorted = [...events].sort((a, b) => String(a.timestamp).localeCompare(String(b.timestamp)));
    const lines = sorted.map((e) =>
      eventLine({
        event: e.event,
        timestamp: e.timestamp,
        place: place(e.placeName, e.locode),
        vessel: e.vesselName,
        voyage: e.voyage,
      }),
    );
    return {
      text: lines.length
        ? `${lines.length} transport events:\n${lines.join('\n')}`
        : 'No transport events yet.',
      data: {
        container_id: args.id,
        transport_events: sorted.map((e) => ({
          event: e.event,
          timestamp: e.timestamp,
          location_locode: e.locode,
          location_name: e.placeName,
          vessel_name: e.vesselName,
          vessel_imo: e.vesselImo,
          voyage_number: e.voyage,
        })),
      },
    };
  },
};

export const getContainerRoute: Tool = {
  name: 'get_container_route',
  title: "A container's route",
  description:
    "The journey's port calls in order with their roles (port of lading, transshipment, port of discharge, destination), and the legs between them with mode, vessel, voyage, ETD/ATD and ETA/ATA.",
  input: Type.Object({ id: Id('container'), intent: Intent }),
  async run(api, args: { id: string }) {
    const { shipment } = await containerWithShipment(api, args.id, []);
    if (!shipment) throw new ToolError('The container has no shipment.');
    const body = await getDoc(
      api,
      `/containers/${encodeURIComponent(args.id)}/route${query({ include: ROUTE_INCLUDE })}`,
    );
    const route = routeOf(body, shipment.attributes);
    const lines = ['Port calls:'];
    for (const p of route.ports)
      lines.push(
        `  ${p.sequence}. ${p.label} ${place(p.name, p.locode)} — arrival ${p.ata_at ? `ATA ${time(p.ata_at)}` : p.eta_at ? `ETA ${time(p.eta_at)}` : '—'}, departure ${p.atd_at ? `ATD ${time(p.atd_at)}` : p.etd_at ? `ETD ${time(p.etd_at)}` : '—'}`,
      );
    lines.push('Legs:');
    for (const l of route.legs)
      lines.push(
        `  ${l.from} → ${l.to} by ${l.mode}${l.vessel_name ? ` on ${l.vessel_name}` : ''}${l.voyage_number ? ` voyage ${l.voyage_number}` : ''}: departed ${l.atd_at ? time(l.atd_at) : `ETD ${time(l.etd_at)}`}, arrived ${l.ata_at ? time(l.ata_at) : `ETA ${time(l.eta_at)}`}`,
      );
    const map = await api('GET', `/containers/${encodeURIComponent(args.id)}/map_geojson`);
    return {
      text: lines.join('\n'),
      data: {
        container_id: args.id,
        shipment_id: shipment.id,
        ...route,
        ...(map.status === 200 ? { map_geojson: map.body } : {}),
      },
    };
  },
};

export const searchContainer: Tool = {
  name: 'search_container',
  title: 'Search containers and shipments',
  description:
    "Finds the account's shipments and containers by container number, bill of lading or booking number, or a reference number, and tracking requests by the number they were made with.",
  input: Type.Object({
    query: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Container, B/L or booking number, or a reference.',
    }),
    intent: Intent,
  }),
  async run(api, args: { query: string }) {
    const q = args.query.trim();
    const doc = await getDoc(api, `/search${query({ query: q })}`);
    const results = (doc.data ?? []).map(flat);
    return {
      text: results.length
        ? results
            .map(
              (r: Record<string, unknown>) =>
                `${r.entity_type ?? r.type} ${r.number ?? ''} (id ${r.id})${r.shipment_id ? ` — shipment ${r.shipment_id}` : ''}`,
            )
            .join('\n')
        : `Nothing matches "${q}".`,
      data: { query: q, results },
    };
  },
};
