import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { type Page, pageOffset } from '../util/page.ts';

// The change history as SQL: each changeset of a fact-changing domain event expanded with
// jsonb_each into one row per attribute (both engines have it), newest first. Row types stay here.

/** One attribute's change, as the change resource reads it. */
export interface ChangeRow {
  id: string;
  attribute: string;
  before: unknown;
  after: unknown;
  observed_at: Date;
  source: string;
  event: string;
  shipment_id: string | null;
  container_id: string | null;
}

/**
 * The domain events whose changesets are the history. Left out on purpose: announcements that
 * repeat a change another event of the same write keeps (container.pod_terminal_changed beside
 * container.updated; the terminal's pickup_lfd.changed and pickup_appointment.changed beside its
 * container.updated), so each change is one row.
 */
export const HISTORY_EVENTS = [
  'shipment.changed',
  // Before migrations/0052 the POD ETA's changes were kept only by these.
  'shipment.estimated.arrival',
  'container.updated',
  'container.transport.estimated.arrived_at_inland_destination',
  'container.pickup_lfd_line.changed',
  'container.pickup_lfd_terminal.changed',
  'container.pickup_lfd_rail.changed',
] as const;

export interface ChangeFilter {
  /** Whose history: a shipment's (its containers' included) or one container's. */
  of: { shipment_id: string } | { container_id: string };
  /** Only these attributes (the service checks the names). */
  attributes?: readonly string[];
  start?: Date;
  end?: Date;
}

function conditions(accountId: string, f: ChangeFilter) {
  const owner =
    'shipment_id' in f.of
      ? sql`d.shipment_id = ${f.of.shipment_id}`
      : sql`d.container_id = ${f.of.container_id}`;
  // The partial indexes of migrations/0052 are on these two conditions.
  const parts = [
    owner,
    sql`d.account_id = ${accountId}`,
    sql`d.source is not null and d.changeset is not null`,
    sql`d.event = any(${[...HISTORY_EVENTS]}::text[])`,
  ];
  if (f.attributes) parts.push(sql`kv.key = any(${[...f.attributes]}::text[])`);
  if (f.start) parts.push(sql`d.created_at >= ${f.start}`);
  if (f.end) parts.push(sql`d.created_at <= ${f.end}`);
  return sql.join(parts, sql` and `);
}

/** One page of the history, newest first, and how many changes the filter matches. */
export async function changePage(
  db: Kysely<DB>,
  accountId: string,
  filter: ChangeFilter,
  page: Page,
): Promise<{ rows: ChangeRow[]; total: number }> {
  const where = conditions(accountId, filter);
  const from = sql`from domain_events d cross join lateral jsonb_each(d.changeset) kv where ${where}`;
  const [rows, count] = await Promise.all([
    sql<ChangeRow>`
      select d.id || ':' || kv.key as id, kv.key as attribute, kv.value -> 0 as before,
             kv.value -> 1 as after, d.created_at as observed_at, d.source, d.event,
             d.shipment_id, d.container_id
        ${from}
       order by d.created_at desc, d.seq desc, kv.key
       limit ${page.size} offset ${pageOffset(page)}`.execute(db),
    sql<{ n: number }>`select count(*)::int as n ${from}`.execute(db),
  ]);
  return { rows: rows.rows, total: Number(count.rows[0]?.n ?? 0) };
}

/** Whether the account has this shipment or container (another account's is not found). */
export async function owns(
  db: Kysely<DB>,
  accountId: string,
  table: 'shipments' | 'containers',
  id: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}
