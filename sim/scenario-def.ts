import type { JourneyKind } from './journeys.ts';
import type { TerminalScript } from './terminal-feed.ts';

// What a scenario is, apart from the library that lists them: scenarios.ts and
// terminal-scenarios.ts both build ScenarioDefs, and neither imports the other's types.

/** Kinds of number a carrier is asked about (the product's NumberType, restated: sim imports no product module). */
export type NumberType = 'bill_of_lading' | 'booking_number' | 'container';

export interface ScenarioInfo {
  /** Number prefix (or exact number for the TEST-TR-* numbers). */
  pattern: string;
  summary: string;
  numberTypes: NumberType[];
  examples: Partial<Record<NumberType, string>>;
}

export interface ScenarioDef extends ScenarioInfo {
  journey: JourneyKind | 'none';
  /** Digit selecting this scenario in the SIMU container rule, if any. */
  containerDigit?: number;
  containers: number;
  flaky?: boolean;
  /** The terminal feed's story for this scenario (terminal-feed.ts); none: the feed does not know it. */
  terminalScript?: TerminalScript;
}
