import { Type } from 'typebox';
import { type ApiCaller, getDoc, query, ToolError } from '../api.ts';
import { time } from '../format.ts';
import { Intent, type Tool } from './tool.ts';

// The arrival estimate over time, from the change history (GET /v2/…/changes, src/changes/):
// how often the line moved it, by how much, and when the service learnt of each move.

const HOUR = 3_600_000;
/** At most this many moves are read (five pages): more than any journey makes. */
const MAX_PAGES = 5;

export interface EtaMove {
  observed_at: string;
  before: string | null;
  after: string | null;
  /** Hours later (positive) or earlier (negative) than the estimate it replaced; null from or to nothing. */
  shift_hours: number | null;
}

async function moves(api: ApiCaller, path: string, attribute: string): Promise<EtaMove[]> {
  const out: EtaMove[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const doc = await getDoc(
      api,
      `${path}${query({ 'filter[attribute]': attribute, 'page[size]': 100, 'page[number]': page })}`,
    );
    for (const c of doc.data ?? []) {
      const { before, after, observed_at } = c.attributes;
      const shift = before && after ? (Date.parse(after) - Date.parse(before)) / HOUR : null;
      out.push({
        observed_at,
        before,
        after,
        shift_hours: shift === null ? null : Math.round(shift * 10) / 10,
      });
    }
    if ((doc.meta?.total ?? 0) <= page * 100) break;
  }
  // Oldest first: the order an estimate moved in.
  return out.reverse();
}

function summary(label: string, current: string | null, list: EtaMove[]): string[] {
  const net = list.reduce((sum, m) => sum + (m.shift_hours ?? 0), 0);
  const lines = [
    `${label}: ${time(current)}; moved ${list.length} time${list.length === 1 ? '' : 's'}` +
      (list.length ? `, ${net >= 0 ? '+' : ''}${Math.round(net * 10) / 10} h in all.` : '.'),
  ];
  for (const m of list) {
    const shift = m.shift_hours === null ? '' : ` (${m.shift_hours >= 0 ? '+' : ''}${m.shift_hours} h)`;
    lines.push(`  learnt ${time(m.observed_at)}: ${time(m.before)} -> ${time(m.after)}${shift}`);
  }
  return lines;
}

export const getEtaHistory: Tool = {
  name: 'get_eta_history',
  title: 'Arrival estimate over time',
  description:
    'How the arrival estimate of a shipment (at its port of discharge) or a container (also its inland destination) moved: each change with the estimate before and after, the shift in hours and when it was learnt, and how often and by how much it moved in all. Give shipment_id or container_id.',
  input: Type.Object({
    shipment_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'The shipment id (UUID).' }),
    ),
    container_id: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'The container id (UUID).' }),
    ),
    intent: Intent,
  }),
  async run(api, args: { shipment_id?: string; container_id?: string }) {
    if (!args.shipment_id === !args.container_id)
      throw new ToolError('Give either shipment_id or container_id.');
    let shipmentId = args.shipment_id;
    let inland: { current: string | null; moves: EtaMove[] } | null = null;
    if (args.container_id) {
      const path = `/containers/${encodeURIComponent(args.container_id)}`;
      const c = (await getDoc(api, path)).data;
      shipmentId = c.relationships?.shipment?.data?.id;
      if (!shipmentId) throw new ToolError('The container has no shipment.');
      inland = {
        current: c.attributes.ind_eta_at ?? null,
        moves: await moves(api, `${path}/changes`, 'ind_eta_at'),
      };
    }
    const path = `/shipments/${encodeURIComponent(shipmentId!)}`;
    const s = (await getDoc(api, path)).data.attributes;
    const pod = await moves(api, `${path}/changes`, 'pod_eta_at');
    const lines = [
      `Shipment ${s.bill_of_lading_number ?? shipmentId}: first estimate at ${s.port_of_discharge_locode ?? 'the port of discharge'} ${time(s.pod_original_eta_at)}${s.pod_ata_at ? `, arrived ${time(s.pod_ata_at)}` : ''}.`,
      ...summary('POD estimate', s.pod_eta_at ?? null, pod),
    ];
    if (inland && (inland.current || inland.moves.length))
      lines.push(...summary('Inland destination estimate', inland.current, inland.moves));
    return {
      text: lines.join('\n'),
      data: {
        shipment_id: shipmentId,
        container_id: args.container_id ?? null,
        pod_original_eta_at: s.pod_original_eta_at ?? null,
        pod_eta_at: s.pod_eta_at ?? null,
        pod_ata_at: s.pod_ata_at ?? null,
        pod_eta_moves: pod,
        ...(inland ? { ind_eta_at: inland.current, ind_eta_moves: inland.moves } : {}),
      },
    };
  },
};
