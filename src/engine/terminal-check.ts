import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';
import { hot } from '../db/statement-names.ts';
import { recordDomainEvents } from '../domain-events/record.ts';
import { allTerminals, terminalById, zoneOfLocode } from '../reference/data.ts';
import { iso } from '../util/iso.ts';
import type { EngineDeps } from './deps.ts';
import { leaseBound, untilAborted } from './lease-bound.ts';
import type { TerminalAdapter, TerminalDirectory } from './terminal.ts';
import { diffTerminal, type TerminalFacts } from './terminal-diff.ts';

// Terminal checks: containers whose POD terminal a terminal connection covers are checked at the
// terminal every TERMINAL_CHECK_INTERVAL_MS from when the POD terminal is known until the
// terminal reports the box gone, its empty is returned, or its shipment or the box alone stops
// (container-tracking.ts). The schedule lives in container_terminal_checks (migrations/0039): a
// claim moves next_check_at a lease ahead, so two workers do not check the same box at once. An
// answer that changes nothing writes only that schedule row; a change writes the container, its
// terminal transport events and domain events in one transaction.

export interface ClaimedCheck {
  id: string;
  account_id: string;
  shipment_id: string;
  number: string;
  scac: string;
  terminal_id: string;
}

function coverage(dir: TerminalDirectory) {
  const sandbox = dir.sandbox ? sql`s.scac = 'TEST'` : sql`false`;
  if (dir.facilities === '*') return sql`(true)`;
  const codes = new Set(dir.facilities);
  const ids = allTerminals()
    .filter((t) => t.smdg_code && codes.has(t.smdg_code))
    .map((t) => t.id);
  return sql`(${sandbox} or coalesce(c.pod_terminal_id, s.pod_terminal_id) = any(${ids}::uuid[]))`;
}

export async function claimDueChecks(
  db: Kysely<DB>,
  dir: TerminalDirectory,
  limit: number,
  leaseMs: number,
): Promise<ClaimedCheck[]> {
  const r = await sql<ClaimedCheck>`${hot('claim_due_terminal_checks')}
    with due as (
      select c.id, c.account_id, c.shipment_id, c.number, s.scac,
             coalesce(c.pod_terminal_id, s.pod_terminal_id) as terminal_id
        from containers c
        join shipments s on s.id = c.shipment_id
        left join container_terminal_checks k on k.container_id = c.id
       where coalesce(c.pod_terminal_id, s.pod_terminal_id) is not null
         and s.line_tracking_stopped_at is null and c.tracking_stopped_at is null
         and c.terminal_full_out_at is null and c.empty_terminated_at is null and c.delivered_at is null
         and (k.next_check_at is null or k.next_check_at <= now())
         and ${coverage(dir)}
       order by k.next_check_at nulls first
       limit ${limit}
       for update of c skip locked
    ), claimed as (
      insert into container_terminal_checks (container_id, account_id, next_check_at)
      select id, account_id, now() + ${`${leaseMs} milliseconds`}::interval from due
      on conflict (container_id) do update set next_check_at = excluded.next_check_at
      returning container_id
    )
    select due.* from due join claimed on claimed.container_id = due.id`.execute(db);
  return r.rows;
}

/** The connection that answers for a claimed box: the sandbox feed for the sandbox line, else by facility. */
function adapterFor(dir: TerminalDirectory, c: ClaimedCheck, facility: string): TerminalAdapter | undefined {
  if (c.scac === 'TEST' && dir.sandbox) return dir.sandbox;
  return dir.forFacility(facility);
}

const jsonArray = <T>(v: unknown): T[] => {
  const parsed = typeof v === 'string' ? JSON.parse(v) : v;
  return Array.isArray(parsed) ? (parsed as T[]) : [];
};

export async function processTerminalCheck(deps: EngineDeps, c: ClaimedCheck): Promise<void> {
  const dir = deps.terminals;
  if (!dir) return;
  const intervalMs = deps.config.terminalCheckIntervalMs;
  const terminal = terminalById(c.terminal_id);
  const adapter = terminal?.smdg_code ? adapterFor(dir, c, terminal.smdg_code) : undefined;
  const now = deps.now?.() ?? new Date();
  const schedule = (db: Kysely<DB>, delayMs: number, checked: boolean) =>
    db
      .updateTable('container_terminal_checks')
      .set({
        next_check_at: new Date(now.getTime() + delayMs),
        ...(checked ? { checked_at: now, failures: 0 } : {}),
      })
      .where('container_id', '=', c.id)
      .execute();
  if (!terminal?.smdg_code || !adapter) {
    await schedule(deps.db, intervalMs, false);
    return;
  }
  const bound = leaseBound(deps.config.worker.leaseMs, deps.shutdown);
  const query = { facility: terminal.smdg_code, locode: terminal.port_locode, container: c.number };
  let cut: ReturnType<typeof bound.cause> = null;
  const result = await untilAborted(adapter.check(query, bound.signal), bound.signal, () => {
    cut = bound.cause() ?? 'lease';
    return { kind: 'temporary_failure' as const, detail: 'terminal check aborted' };
  });
  if (cut) {
    deps.log.warn({ container: c.number, cause: cut }, 'terminal check aborted; retried later');
    deps.onLookupAborted?.('terminal', cut);
  }
  if (result.kind === 'temporary_failure') {
    await schedule(deps.db, Math.min(intervalMs, Math.max(result.retryAfterMs ?? 0, intervalMs / 4)), false);
    return;
  }
  if (result.kind === 'not_found') {
    await schedule(deps.db, intervalMs, true);
    return;
  }
  let recorded = false;
  await deps.db.transaction().execute(async (tx) => {
    const row = await tx
      .selectFrom('containers')
      .select([
        'availability_known',
        'available_for_pickup',
        'location_at_pod_terminal',
        'pod_full_out_chassis_number',
        'holds_at_pod_terminal',
        'fees_at_pod_terminal',
        'pickup_lfd_line',
        'pickup_lfd_terminal',
        'pickup_lfd_rail',
        'pickup_appointment_at',
        'pod_berthed_at',
        'terminal_full_out_at',
        'delivered_at',
        'tracking_stopped_at',
      ])
      .where('id', '=', c.id)
      .forUpdate()
      .executeTakeFirst();
    // Stopped between the claim and this answer: the answer is not read (container-tracking.ts).
    if (!row || row.tracking_stopped_at !== null) return;
    const { tracking_stopped_at: _stopped, ...facts } = row;
    const stored: TerminalFacts = {
      ...facts,
      holds_at_pod_terminal: jsonArray(row.holds_at_pod_terminal),
      fees_at_pod_terminal: jsonArray(row.fees_at_pod_terminal),
      pickup_lfd_line: iso(row.pickup_lfd_line),
      pickup_lfd_terminal: iso(row.pickup_lfd_terminal),
      pickup_lfd_rail: iso(row.pickup_lfd_rail),
      pickup_appointment_at: iso(row.pickup_appointment_at),
      pod_berthed_at: iso(row.pod_berthed_at),
      terminal_full_out_at: iso(row.terminal_full_out_at),
      delivered_at: iso(row.delivered_at),
    };
    const plan = diffTerminal(stored, result.status, now.toISOString());
    await schedule(tx, intervalMs, true);
    if (Object.keys(plan.changes).length === 0) return;
    const { holds_at_pod_terminal, fees_at_pod_terminal, ...rest } = plan.changes;
    await tx
      .updateTable('containers')
      .set({
        ...rest,
        ...(holds_at_pod_terminal ? { holds_at_pod_terminal: JSON.stringify(holds_at_pod_terminal) } : {}),
        ...(fees_at_pod_terminal ? { fees_at_pod_terminal: JSON.stringify(fees_at_pod_terminal) } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', c.id)
      .execute();
    const base = { account_id: c.account_id, shipment_id: c.shipment_id, container_id: c.id };
    const announced = { ...base, source: 'terminal' as const };
    const domain = [];
    for (const e of plan.events) {
      if (e.reference.kind === 'transport_event') {
        const id = randomUUID();
        await tx
          .insertInto('transport_events')
          .values({
            id,
            ...base,
            key: e.reference.key,
            event: e.event,
            timestamp: e.reference.timestamp,
            timestamp_inferred_zone: false,
            timezone: zoneOfLocode(terminal.port_locode),
            location_locode: terminal.port_locode,
            terminal_id: terminal.id,
            vessel_id: null,
            voyage_number: null,
            data_source: 'terminal',
          })
          .onConflict((oc) => oc.columns(['container_id', 'key']).doNothing())
          .execute();
        domain.push({ ...announced, event: e.event, reference_type: 'transport_event', reference_id: id });
      } else {
        domain.push({
          ...announced,
          event: e.event,
          reference_type: 'container_updated_event',
          changeset: e.changeset ?? null,
        });
      }
    }
    await recordDomainEvents(tx, domain);
    recorded = domain.length > 0;
  });
  if (recorded) deps.onDomainEvents?.();
}
