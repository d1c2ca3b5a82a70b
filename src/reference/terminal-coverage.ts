import type { TerminalConfigEntry } from '../config/terminals.ts';
import type { Terminal } from './data.ts';

// A terminal's provided_data: which terminal facts this product gets there. A terminal connection
// (TERMINALS_CONFIG, src/terminals/) answers a TerminalStatus, from which engine/terminal-diff.ts
// fills these container attributes; a terminal no configured connection covers has none of them.
// The coverage comes from the configuration, one per process: buildApp sets it.

/** The container attributes a terminal connection supplies (engine/terminal.ts TerminalStatus). */
export const TERMINAL_FACTS = [
  'available_for_pickup',
  'holds_at_pod_terminal',
  'fees_at_pod_terminal',
  'pickup_lfd',
  'pickup_appointment_at',
  'location_at_pod_terminal',
  'pod_full_out_at',
  'pod_full_out_chassis_number',
] as const;

/** Facts the reference service lists for some facilities that no terminal connection here reports. */
const NOT_SUPPLIED = ['empty_terminated_at'] as const;

/** Every fact a terminal's provided_data names. */
export const PROVIDED_FACTS = [...TERMINAL_FACTS, ...NOT_SUPPLIED] as const;

let entries: ReadonlyArray<Pick<TerminalConfigEntry, 'adapter' | 'facilities'>> = [];

/** The configured terminal connections (TERMINALS_CONFIG), as buildApp reads them. */
export function setTerminalCoverage(
  configured: ReadonlyArray<Pick<TerminalConfigEntry, 'adapter' | 'facilities'>>,
) {
  entries = configured;
}

/** Each fact with whether it is provided here, and a note naming the connection (or why not). */
export function providedData(t: Terminal): Record<string, boolean | string> {
  const code = t.smdg_code?.toUpperCase();
  const entry = entries.find(
    (e) => e.facilities === '*' || (code !== undefined && e.facilities.includes(code)),
  );
  const note = entry
    ? `Reported by the terminal connection (${entry.adapter}).`
    : 'No terminal connection covers this facility.';
  const out: Record<string, boolean | string> = {};
  for (const fact of TERMINAL_FACTS) {
    out[fact] = entry !== undefined;
    out[`${fact}_notes`] = note;
  }
  for (const fact of NOT_SUPPLIED) {
    out[fact] = false;
    out[`${fact}_notes`] = 'No terminal connection here reports it.';
  }
  return out;
}
