import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { CONTAINER_FIELDS } from '../engine/facts.ts';
import { ANNOUNCED_TERMINAL_FIELDS, LFD_EVENTS } from '../engine/terminal-diff.ts';
import { badParameter, notFound } from '../errors.ts';
import type { Resource } from '../jsonapi/resource.ts';
import { serializerOf } from '../members/kit.ts';
import type { Page } from '../util/page.ts';
import { isUuid } from '../util/uuid.ts';
import { CHANGE } from './members.ts';
import { changePage, owns } from './queries.ts';

// The change history of a shipment or container (issue 32): what changed, from what to what,
// when it was observed and where it came from, read from the domain events the engine records.

/** Every attribute whose changes are kept: the carrier's shipment and container facts, the terminal's. */
export const HISTORY_ATTRIBUTES: ReadonlySet<string> = new Set([
  'bill_of_lading_number',
  'port_of_lading_locode',
  'port_of_discharge_locode',
  'destination_locode',
  'transshipment_locodes',
  'pod_terminal_id',
  'pod_vessel_name',
  'pod_vessel_imo',
  'pod_voyage_number',
  'pol_etd_at',
  'pol_atd_at',
  'pod_eta_at',
  'pod_ata_at',
  'destination_eta_at',
  'destination_ata_at',
  ...CONTAINER_FIELDS,
  ...ANNOUNCED_TERMINAL_FIELDS,
  'pickup_lfd',
  ...LFD_EVENTS.map(([field]) => field),
  // A user's stop and resume of one container (engine/container-tracking.ts), source user.
  'tracking_stopped_at',
  'tracking_stopped_reason',
]);

export interface ChangeQuery {
  /** filter[attribute]: comma-separated names. */
  attribute?: string;
  start?: Date;
  end?: Date;
  page: Page;
}

const serialize = serializerOf(CHANGE);

/** The checked attribute names of filter[attribute]; an unknown one is a 400 naming the parameter. */
export function parseAttributes(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  const names = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw badParameter('filter[attribute]', 'filter[attribute] names no attribute.');
  for (const n of names) {
    if (!HISTORY_ATTRIBUTES.has(n)) {
      const shown = n.length > 64 ? `${n.slice(0, 64)}…` : n;
      throw badParameter(
        'filter[attribute]',
        `filter[attribute] names "${shown}", whose changes are not kept. Allowed: ${[...HISTORY_ATTRIBUTES].join(', ')}.`,
      );
    }
  }
  return names;
}

/** A page of the changes of the account's shipment or container, newest first; 404 when not its. */
export async function listChanges(
  db: Kysely<DB>,
  accountId: string,
  of: { kind: 'shipment' | 'container'; id: string },
  q: ChangeQuery,
): Promise<{ data: Resource[]; total: number }> {
  const attributes = parseAttributes(q.attribute);
  if (q.start && q.end && q.start > q.end) {
    throw badParameter(
      'filter[observed_at][start]',
      'filter[observed_at][start] is after filter[observed_at][end]: no change can match.',
    );
  }
  const table = of.kind === 'shipment' ? 'shipments' : 'containers';
  if (!isUuid(of.id) || !(await owns(db, accountId, table, of.id)))
    throw notFound(`No ${of.kind} with this id.`);
  const { rows, total } = await changePage(
    db,
    accountId,
    {
      of: of.kind === 'shipment' ? { shipment_id: of.id } : { container_id: of.id },
      attributes,
      start: q.start,
      end: q.end,
    },
    q.page,
  );
  return { data: rows.map((r) => serialize(r, undefined)), total };
}
