import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { type LeasedTable, UNLEASED } from './leases.ts';

// The work queues, as metrics report them: which table holds each kind of item, which column says
// when it is due, and which rows are still work. A lookup table, so a new queue is one line here.

interface Queue {
  kind: string;
  table: LeasedTable;
  due: string;
  /** Rows that are still work (finished items keep their row). */
  open: RawBuilder<boolean>;
}

const QUEUES: readonly Queue[] = [
  {
    kind: 'tracking_request',
    table: 'tracking_requests',
    due: 'next_attempt_at',
    open: sql<boolean>`status in ('pending', 'awaiting_manifest') and next_attempt_at is not null`,
  },
  {
    kind: 'shipment_refresh',
    table: 'shipments',
    due: 'next_refresh_at',
    open: sql<boolean>`line_tracking_stopped_at is null and next_refresh_at is not null`,
  },
  {
    kind: 'webhook_notification',
    table: 'webhook_notifications',
    due: 'next_attempt_at',
    open: sql<boolean>`delivery_status = 'pending'`,
  },
  {
    kind: 'document',
    table: 'documents',
    due: 'next_process_at',
    open: sql<boolean>`next_process_at is not null`,
  },
];

export interface QueueStats {
  kind: string;
  due: number;
  leased: number;
  oldest_due_seconds: number | null;
}

/** Items due and not leased, items under a live lease, and the age of the oldest due item, per kind. */
export async function queueStats(db: Kysely<DB>): Promise<QueueStats[]> {
  const parts = QUEUES.map((q) => {
    const due = sql.ref(q.due);
    return sql`
    select ${q.kind}::text as kind,
           count(*) filter (where ${due} <= now() and ${UNLEASED})::int as due,
           count(*) filter (where lease_expires_at >= now())::int as leased,
           extract(epoch from now() - min(${due}) filter (where ${due} <= now()))::float8 as oldest_due_seconds
      from ${sql.table(q.table)} where ${q.open}`;
  });
  const r = await sql<QueueStats>`${sql.join(parts, sql` union all `)}`.execute(db);
  return r.rows;
}
