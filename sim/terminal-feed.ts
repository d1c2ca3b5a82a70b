import type { SimEvent } from './events.ts';
import { DAY, HOUR } from './time.ts';

// The simulated terminal system at each journey's port of discharge: what the terminal knows
// about a box at a simulated instant (availability, holds, fees, last free days, pickup
// appointment, berthing, gate-out), derived from the journey's own DCSA events (arrival,
// discharge, full out) and the scenario's terminal script. Pure. Served over HTTP by
// terminal-endpoint.ts and in-process to the sandbox line through library.ts.

/** Which terminal story a scenario tells (scenarios.ts names one per terminal scenario). */
export type TerminalScript = 'available' | 'hold' | 'lfd' | 'fees' | 'appointment' | 'delivered';

/** The feed's answer (docs/simulator.md, "Terminal feed"). Instants are ISO 8601 UTC. */
export interface TerminalFeedAnswer {
  container: string;
  port: string;
  facility: string;
  checked_at: string;
  availability: { known: boolean; available: boolean | null; location: string | null };
  holds: Array<{ type: string; status: 'pending' | 'hold'; description: string | null }>;
  fees: Array<{ type: string; amount: number; currency: string }>;
  last_free_day: { line: string | null; terminal: string | null; rail: string | null };
  appointment_at: string | null;
  vessel: { name: string | null; berthed_at: string | null };
  gate_out: { at: string; kind: 'full_out' | 'delivered'; chassis: string | null } | null;
}

interface PodFacts {
  port: string;
  facility: string;
  vessel: string | null;
  arrivedMs: number;
  dischargedMs: number;
  fullOutMs: number | null;
}

/** Arrival, discharge and full out of `container` at its port of discharge (the last vessel discharge). */
function podFacts(events: readonly SimEvent[], container: string): PodFacts | undefined {
  let disc: SimEvent | undefined;
  for (const e of events) {
    const d = e.event;
    if (
      d.eventClassifierCode === 'ACT' &&
      d.equipmentEventTypeCode === 'DISC' &&
      d.equipmentReference === container &&
      d.transportCall?.modeOfTransport === 'VESSEL'
    )
      disc = e;
  }
  const call = disc?.event.transportCall;
  if (!disc || !call?.facilityCode) return undefined;
  const arrival = events.find(
    (e) =>
      e.event.eventClassifierCode === 'ACT' &&
      e.event.transportEventTypeCode === 'ARRI' &&
      e.event.transportCall?.transportCallID === call.transportCallID,
  );
  const fullOut = events.find(
    (e) =>
      e.event.eventClassifierCode === 'ACT' &&
      e.event.equipmentEventTypeCode === 'GTOT' &&
      e.event.emptyIndicatorCode === 'LADEN' &&
      e.event.equipmentReference === container &&
      e.eventMs > disc.eventMs,
  );
  return {
    port: call.UNLocationCode,
    facility: call.facilityCode,
    vessel: call.vessel?.vesselName ?? null,
    arrivedMs: arrival?.eventMs ?? disc.eventMs - 8 * HOUR,
    dischargedMs: disc.eventMs,
    fullOutMs: fullOut?.eventMs ?? null,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
/** A last free day: the end of the UTC day `days` after discharge (terminals count whole days). */
const lfd = (dischargedMs: number, days: number) =>
  iso(Math.floor(dischargedMs / DAY) * DAY + days * DAY + 23 * HOUR + 59 * 60_000);

/** The terminal learns of a box this long before its vessel arrives (the vessel's manifest). */
export const TERMINAL_KNOWS_BEFORE_ARRIVAL_MS = 7 * DAY;

/**
 * What the POD terminal says about `container` at `nowMs`, or undefined when it does not know the
 * box (no terminal script, another facility, or more than a week before the vessel arrives).
 */
export function terminalAnswer(
  script: TerminalScript | undefined,
  events: readonly SimEvent[],
  container: string,
  facility: string,
  nowMs: number,
): TerminalFeedAnswer | undefined {
  if (!script) return undefined;
  const pod = podFacts(events, container);
  if (!pod || pod.facility !== facility.toUpperCase()) return undefined;
  if (nowMs < pod.arrivedMs - TERMINAL_KNOWS_BEFORE_ARRIVAL_MS) return undefined;
  const D = pod.dischargedMs;
  const at = (offsetMs: number) => nowMs >= D + offsetMs;
  const discharged = nowMs >= D;
  const gone = pod.fullOutMs !== null && nowMs >= pod.fullOutMs;

  const holds: TerminalFeedAnswer['holds'] = [];
  const fees: TerminalFeedAnswer['fees'] = [];
  // Each state lasts at least two days, so a poller looking every other day sees every one.
  if (script === 'hold' && at(3 * DAY) && !at(6 * DAY)) {
    holds.push({ type: 'customs', status: 'hold', description: 'CBP exam hold' });
  }
  if (script === 'hold' && at(3 * DAY)) fees.push({ type: 'exam', amount: 350, currency: 'USD' });
  const lastFree = {
    line: null as string | null,
    terminal: null as string | null,
    rail: null as string | null,
  };
  if (discharged) {
    lastFree.line = lfd(D, 5);
    lastFree.terminal = lfd(D, 4);
    if (script === 'lfd') lastFree.rail = lfd(D, 6);
  }
  if (script === 'lfd' && at(2 * DAY)) {
    lastFree.line = lfd(D, 7);
    lastFree.terminal = lfd(D, 5);
    lastFree.rail = lfd(D, 8);
  }
  if (script === 'fees' && discharged) {
    // Demurrage from the day after the terminal's last free day, 150 USD a day, with the total.
    const days = Math.floor((nowMs - (Math.floor(D / DAY) * DAY + 5 * DAY)) / DAY) + 1;
    const billed = Math.max(0, Math.min(days, gone && pod.fullOutMs ? daysBilled(D, pod.fullOutMs) : days));
    if (billed > 0) {
      fees.push({ type: 'demurrage', amount: 150 * billed, currency: 'USD' });
      fees.push({ type: 'total', amount: 150 * billed, currency: 'USD' });
    }
  }
  let appointment: string | null = null;
  if (script === 'appointment' && at(DAY)) appointment = iso(Math.floor(D / DAY) * DAY + 3 * DAY + 9 * HOUR);
  if (script === 'appointment' && at(4 * DAY))
    appointment = iso(Math.floor(D / DAY) * DAY + 6 * DAY + 14 * HOUR);

  const ready = discharged && at(3 * HOUR);
  const available = gone ? false : ready ? holds.length === 0 : false;
  const berthedMs = pod.arrivedMs + 2 * HOUR;
  return {
    container,
    port: pod.port,
    facility: pod.facility,
    checked_at: iso(nowMs),
    availability: {
      known: true,
      available,
      location: gone ? `Delivered ${iso(pod.fullOutMs!)}` : ready ? `Yard ${yardSlot(container)}` : null,
    },
    holds,
    fees,
    last_free_day: lastFree,
    appointment_at: appointment,
    vessel: { name: pod.vessel, berthed_at: nowMs >= berthedMs ? iso(berthedMs) : null },
    gate_out: gone
      ? {
          at: iso(pod.fullOutMs!),
          kind: script === 'delivered' ? 'delivered' : 'full_out',
          chassis: `SIMZ${container.slice(-6)}`,
        }
      : null,
  };
}

function daysBilled(dischargedMs: number, fullOutMs: number): number {
  return Math.floor((fullOutMs - (Math.floor(dischargedMs / DAY) * DAY + 5 * DAY)) / DAY) + 1;
}

function yardSlot(container: string): string {
  let h = 0;
  for (const ch of container) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return `${String.fromCharCode(65 + (h % 6))}-${(h >> 3) % 40}-${(h >> 9) % 6}`;
}
