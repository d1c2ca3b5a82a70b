import type { ScenarioDef } from './scenario-def.ts';
import type { TerminalScript } from './terminal-feed.ts';

// The terminal-data scenarios: CNSGH -> (KRPUS on board) -> USLGB, about 17.5 simulated days from
// the epoch to the discharge, then ten days at the POD terminal (LBCT, or ITS after a
// reassignment) before the full out and three more to the empty return: everything happens within
// 32 simulated days. The terminal feed (terminal-feed.ts) tells each one's terminal story.

const DOCS: ScenarioDef['numberTypes'] = ['bill_of_lading', 'booking_number'];

const def = (
  pattern: string,
  terminalScript: TerminalScript,
  summary: string,
  journey: ScenarioDef['journey'] = 'terminal',
): ScenarioDef => ({
  pattern,
  journey,
  containers: 1,
  numberTypes: DOCS,
  terminalScript,
  summary: `CNSGH -> USLGB, ten days at the POD terminal; terminal feed: ${summary}`,
  examples: { bill_of_lading: `${pattern}0001`, booking_number: `BKG${pattern.slice(3)}0001` },
});

export const TERMINAL_SCENARIOS: ScenarioDef[] = [
  def(
    'SIMTAVL',
    'available',
    'vessel berthed 2 h after arrival, available for pickup 3 h after discharge, line and terminal last free days, then picked up (full out)',
  ),
  def(
    'SIMTHOLD',
    'hold',
    'available, then a customs hold three days after discharge (not available) with an exam fee, released three days later (available again)',
  ),
  def(
    'SIMTLFD',
    'lfd',
    'line, terminal and rail last free days at discharge, all three moved two days later',
  ),
  def(
    'SIMTFEE',
    'fees',
    'demurrage of 150 USD a day (and the total) added from the day after the terminal last free day until the full out',
  ),
  def(
    'SIMTAPPT',
    'appointment',
    'pickup appointment booked one day after discharge, rescheduled three days later',
  ),
  def(
    'SIMTREAS',
    'available',
    'POD terminal reassigned from LBCT to ITS a week before arrival; the ITS terminal reports availability',
    'terminal-reassign',
  ),
  def(
    'SIMTDLV',
    'delivered',
    'available, then the terminal reports the box delivered (handed over full) at the full out',
  ),
];
