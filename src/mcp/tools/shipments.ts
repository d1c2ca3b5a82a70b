import { Type } from 'typebox';
import { type Doc, getDoc, includedIndex, query } from '../api.ts';
import { containerLines, flat, shipmentLines } from '../format.ts';
import { Id, Intent, type PageArgs, Paging, pageNote, pageQuery, type Tool } from './tool.ts';

const containersOf = (doc: Doc, s: Doc['data']) => {
  const index = includedIndex(doc);
  return (s.relationships?.containers?.data ?? [])
    .map((r: { id: string }) => index.get(`container:${r.id}`))
    .filter(Boolean);
};

export const getShipmentDetails: Tool = {
  name: 'get_shipment_details',
  title: 'Get a shipment',
  description:
    'A shipment by id: carrier, routing (port of lading, transshipments, port of discharge and terminal, destination), vessel and voyage, ETD/ATD, ETA/ATA, references, tags, tracking state, and its containers.',
  input: Type.Object({
    id: Id('shipment'),
    include_containers: Type.Optional(Type.Boolean({ description: 'Add the containers (default true).' })),
    intent: Intent,
  }),
  async run(api, args: { id: string; include_containers?: boolean }) {
    const withContainers = args.include_containers !== false;
    const include = [
      'pod_terminal',
      'port_of_lading',
      'port_of_discharge',
      'destination',
      ...(withContainers ? ['containers'] : []),
    ];
    const doc = await getDoc(
      api,
      `/shipments/${encodeURIComponent(args.id)}${query({ include: include.join(',') })}`,
    );
    const s = doc.data;
    const index = includedIndex(doc);
    const terminalRef = s.relationships?.pod_terminal?.data;
    const terminal = terminalRef ? index.get(`terminal:${terminalRef.id}`) : undefined;
    const lines = shipmentLines(s.attributes);
    if (terminal) lines.push(`  POD terminal: ${terminal.attributes.name}`);
    const containers = withContainers ? containersOf(doc, s) : [];
    if (withContainers) {
      lines.push('', `Containers (${containers.length}):`);
      for (const c of containers)
        lines.push(...containerLines(c.attributes).map((l) => `  ${l}`), `    id: ${c.id}`);
    }
    return {
      text: lines.join('\n'),
      data: {
        shipment: flat(s),
        pod_terminal: terminal ? flat(terminal) : null,
        ...(withContainers ? { containers: containers.map(flat) } : {}),
      },
    };
  },
};

export const listShipments: Tool = {
  name: 'list_shipments',
  title: 'List shipments',
  description:
    "A page of the account's shipments, newest first; filter by the number requested or by tracking state.",
  input: Type.Object({
    number: Type.Optional(
      Type.String({ maxLength: 100, description: 'The B/L or booking number requested.' }),
    ),
    tracking_stopped: Type.Optional(
      Type.Boolean({ description: 'true: only stopped; false: only still tracked.' }),
    ),
    include_containers: Type.Optional(Type.Boolean({ description: 'Add each shipment’s containers.' })),
    ...Paging,
  }),
  async run(
    api,
    args: {
      number?: string;
      tracking_stopped?: boolean;
      include_containers?: boolean;
    } & PageArgs,
  ) {
    const doc = await getDoc(
      api,
      `/shipments${query({
        number: args.number,
        'filter[tracking_stopped]': args.tracking_stopped,
        include: args.include_containers ? 'containers' : undefined,
        ...pageQuery(args),
      })}`,
    );
    const lines: string[] = [];
    const shipments = (doc.data ?? []).map((s: Doc['data']) => {
      lines.push(...shipmentLines(s.attributes), `  Shipment id: ${s.id}`);
      const containers = args.include_containers ? containersOf(doc, s) : [];
      for (const c of containers)
        lines.push(`  Container ${c.attributes.number} — ${c.attributes.current_status} (id ${c.id})`);
      return { ...flat(s), ...(args.include_containers ? { containers: containers.map(flat) } : {}) };
    });
    return {
      text: shipments.length ? `${lines.join('\n')}\n${pageNote(doc, args)}` : 'No shipments match.',
      data: { shipments, meta: doc.meta ?? {} },
    };
  },
};

const LIST_CONTAINER_INCLUDES = ['shipment', 'pod_terminal', 'transport_events'] as const;

export const listContainers: Tool = {
  name: 'list_containers',
  title: 'List containers',
  description: "A page of the account's containers, newest first, with status and milestones.",
  input: Type.Object({
    include: Type.Optional(
      Type.Array(Type.Union(LIST_CONTAINER_INCLUDES.map((i) => Type.Literal(i))), {
        description: 'Related data to add: shipment, pod_terminal, transport_events.',
      }),
    ),
    ...Paging,
  }),
  async run(api, args: { include?: string[] } & PageArgs) {
    const include = args.include?.length ? [...new Set(args.include)].join(',') : undefined;
    const doc = await getDoc(api, `/containers${query({ include, ...pageQuery(args) })}`);
    const index = includedIndex(doc);
    const lines: string[] = [];
    const containers = (doc.data ?? []).map((c: Doc['data']) => {
      const ref = c.relationships?.shipment?.data;
      const shipment = ref ? index.get(`shipment:${ref.id}`) : undefined;
      lines.push(
        `${containerLines(c.attributes)[0]} (id ${c.id})${shipment ? ` — B/L ${shipment.attributes.bill_of_lading_number}` : ''}`,
      );
      return { ...flat(c), shipment_id: ref?.id ?? null };
    });
    return {
      text: containers.length ? `${lines.join('\n')}\n${pageNote(doc, args)}` : 'No containers.',
      data: { containers, included: (doc.included ?? []).map(flat), meta: doc.meta ?? {} },
    };
  },
};
