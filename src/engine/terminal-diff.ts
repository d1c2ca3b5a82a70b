import type { TerminalStatus } from './terminal.ts';

// Terminal data in, container attributes and domain events out. Pure. The stored terminal
// attributes of a container and a terminal's answer give the columns to write and the events to
// announce; the same answer read again gives nothing (no write, no event).

export interface TerminalHoldFact {
  name: string;
  status: string;
  description: string | null;
}
export interface TerminalFeeFact {
  type: string;
  amount: number;
  currency_code: string | null;
}

/** A container's terminal attributes as stored (migrations/0039). Instants are ISO strings. */
export interface TerminalFacts {
  availability_known: boolean;
  available_for_pickup: boolean | null;
  location_at_pod_terminal: string | null;
  pod_full_out_chassis_number: string | null;
  holds_at_pod_terminal: TerminalHoldFact[];
  fees_at_pod_terminal: TerminalFeeFact[];
  pickup_lfd_line: string | null;
  pickup_lfd_terminal: string | null;
  pickup_lfd_rail: string | null;
  pickup_appointment_at: string | null;
  pod_berthed_at: string | null;
  terminal_full_out_at: string | null;
  delivered_at: string | null;
}

export type TerminalField = keyof TerminalFacts;

/** The coalesced last free day: the line's, else the terminal's, else the rail's (not the earliest). */
export function pickupLfd(
  f: Pick<TerminalFacts, 'pickup_lfd_line' | 'pickup_lfd_terminal' | 'pickup_lfd_rail'>,
) {
  return f.pickup_lfd_line ?? f.pickup_lfd_terminal ?? f.pickup_lfd_rail;
}

export interface TerminalEventPlan {
  event: string;
  /** A transport event (data_source terminal) to insert, or a container_updated_event changeset. */
  reference: { kind: 'transport_event'; key: string; timestamp: string } | { kind: 'container_event' };
  changeset?: Record<string, [unknown, unknown]>;
}

export interface TerminalPlan {
  changes: Partial<TerminalFacts>;
  events: TerminalEventPlan[];
}

/** What the stored attributes become after this answer. Known berth and gate-out times are kept. */
export function terminalFacts(stored: TerminalFacts, s: TerminalStatus): TerminalFacts {
  return {
    availability_known: s.availabilityKnown,
    available_for_pickup: s.availabilityKnown ? s.available : null,
    location_at_pod_terminal: s.location,
    pod_full_out_chassis_number: s.left?.chassisNumber ?? stored.pod_full_out_chassis_number,
    holds_at_pod_terminal: s.holds.map((h) => ({
      name: h.name,
      status: h.status,
      description: h.description,
    })),
    fees_at_pod_terminal: s.fees.map((f) => ({
      type: f.type,
      amount: f.amount,
      currency_code: f.currency_code,
    })),
    pickup_lfd_line: s.lastFreeDay.line,
    pickup_lfd_terminal: s.lastFreeDay.terminal,
    pickup_lfd_rail: s.lastFreeDay.rail,
    pickup_appointment_at: s.pickupAppointmentAt,
    pod_berthed_at: s.vesselBerthedAt ?? stored.pod_berthed_at,
    terminal_full_out_at: s.left?.at ?? stored.terminal_full_out_at,
    delivered_at: stored.delivered_at ?? (s.left?.kind === 'delivered' ? s.left.at : null),
  };
}

const same = (a: unknown, b: unknown): boolean => {
  if (typeof a === 'string' && typeof b === 'string') return Date.parse(a) === Date.parse(b) || a === b;
  if (typeof a === 'object' || typeof b === 'object') return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
};

/** Attributes a container.updated changeset names when they change (the served names). */
export const ANNOUNCED_TERMINAL_FIELDS: readonly TerminalField[] = [
  'availability_known',
  'available_for_pickup',
  'location_at_pod_terminal',
  'holds_at_pod_terminal',
  'fees_at_pod_terminal',
  'pickup_appointment_at',
];
/** Each last free day with the event its change raises. */
export const LFD_EVENTS: ReadonlyArray<readonly [TerminalField, string]> = [
  ['pickup_lfd_line', 'container.pickup_lfd_line.changed'],
  ['pickup_lfd_terminal', 'container.pickup_lfd_terminal.changed'],
  ['pickup_lfd_rail', 'container.pickup_lfd_rail.changed'],
];

/**
 * The plan for one terminal answer checked at `checkedAt`. Events: available / not_available on a
 * change of availability (not when the box leaves: that is its full out or delivery),
 * vessel_berthed and delivered once, each last free day and the coalesced one, the appointment,
 * and a container.updated naming every served terminal attribute that changed.
 */
export function diffTerminal(stored: TerminalFacts, s: TerminalStatus, checkedAt: string): TerminalPlan {
  const next = terminalFacts(stored, s);
  const changes: Partial<TerminalFacts> = {};
  for (const k of Object.keys(next) as TerminalField[]) {
    if (!same(stored[k], next[k])) (changes as Record<string, unknown>)[k] = next[k];
  }
  const events: TerminalEventPlan[] = [];
  if (Object.keys(changes).length === 0) return { changes, events };
  const changed = (k: TerminalField) => k in changes;
  const te = (event: string, key: string, timestamp: string) =>
    events.push({ event, reference: { kind: 'transport_event', key, timestamp } });
  const ce = (event: string, changeset: Record<string, [unknown, unknown]>) =>
    events.push({ event, reference: { kind: 'container_event' }, changeset });

  if (changed('pod_berthed_at') && stored.pod_berthed_at === null && next.pod_berthed_at)
    te('container.transport.vessel_berthed', 'terminal:vessel_berthed', next.pod_berthed_at);
  if (changed('available_for_pickup')) {
    if (next.available_for_pickup === true)
      te('container.transport.available', `terminal:available:${checkedAt}`, checkedAt);
    else if (stored.available_for_pickup === true && !s.left)
      te('container.transport.not_available', `terminal:not_available:${checkedAt}`, checkedAt);
  }
  for (const [field, event] of LFD_EVENTS)
    if (changed(field)) ce(event, { [field]: [stored[field], next[field]] });
  const [wasLfd, nowLfd] = [pickupLfd(stored), pickupLfd(next)];
  if (!same(wasLfd, nowLfd)) ce('container.pickup_lfd.changed', { pickup_lfd: [wasLfd, nowLfd] });
  if (changed('pickup_appointment_at'))
    ce('container.pickup_appointment.changed', {
      pickup_appointment_at: [stored.pickup_appointment_at, next.pickup_appointment_at],
    });
  if (changed('delivered_at') && stored.delivered_at === null && next.delivered_at)
    te('container.transport.delivered', 'terminal:delivered', next.delivered_at);

  const changeset: Record<string, [unknown, unknown]> = {};
  for (const k of ANNOUNCED_TERMINAL_FIELDS) if (changed(k)) changeset[k] = [stored[k], next[k]];
  if (!same(wasLfd, nowLfd)) changeset.pickup_lfd = [wasLfd, nowLfd];
  if (Object.keys(changeset).length > 0) ce('container.updated', changeset);
  return { changes, events };
}
