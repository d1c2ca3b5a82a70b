// The port every terminal connection implements (src/terminals/ holds the adapters), beside the
// carrier port (carrier.ts). Carriers' DCSA Track & Trace does not carry what the terminal at the
// port of discharge knows about a box: whether it can be picked up, its holds and fees, its last
// free days, the pickup appointment, the vessel's berthing and when the box left. An adapter asks
// a terminal system about one container at one facility and reads the answer into a
// TerminalStatus; turning that into container attributes and events is the engine's (pure) job
// (terminal-diff.ts).

/** A hold as the terminal reports it. `name` uses the reference's names where they apply. */
export interface TerminalHold {
  /** freight | customs | USDA | VACIS | TMF | other (case-sensitive, as the reference serves them). */
  name: string;
  status: 'pending' | 'hold';
  description: string | null;
}

export interface TerminalFee {
  /** demurrage | exam | extended_dwell_time | other | total */
  type: string;
  amount: number;
  currency_code: string | null;
}

/** What a terminal says about one container now. Instants are ISO 8601 UTC strings. */
export interface TerminalStatus {
  /** Whether the terminal reports availability at all (the reference's availability_known). */
  availabilityKnown: boolean;
  /** Ready for pickup (discharged, no hold, not gone); null when the terminal does not say. */
  available: boolean | null;
  /** Where the box sits in the yard, free text. */
  location: string | null;
  /** Open holds; a released hold is absent. */
  holds: TerminalHold[];
  fees: TerminalFee[];
  /** Last free day by who sets it. */
  lastFreeDay: { line: string | null; terminal: string | null; rail: string | null };
  pickupAppointmentAt: string | null;
  /** When the vessel carrying the box berthed at this terminal. */
  vesselBerthedAt: string | null;
  /** When the box left the terminal full, and whether the terminal calls that a delivery. */
  left: { at: string; kind: 'full_out' | 'delivered'; chassisNumber: string | null } | null;
}

export type TerminalResult =
  | { kind: 'found'; status: TerminalStatus }
  /** The terminal does not know the box (not manifested there, or another terminal's). */
  | { kind: 'not_found' }
  | { kind: 'temporary_failure'; detail: string; retryAfterMs?: number };

export interface TerminalQuery {
  /** SMDG terminal code of the POD terminal, e.g. "LBCT". */
  facility: string;
  /** UN/LOCODE of the port, e.g. "USLGB". */
  locode: string;
  container: string;
}

export interface TerminalAdapter {
  /** The configured adapter name, for logs and metrics. */
  readonly name: string;
  /** Whether this connection answers for the facility (the entry's `facilities`, or "*"). */
  covers(facility: string): boolean;
  /** Must never throw: every problem is a TerminalResult. */
  check(query: TerminalQuery, signal?: AbortSignal): Promise<TerminalResult>;
}

/** Picks the terminal connection of a facility: the first configured entry that covers it. */
export interface TerminalDirectory {
  /** The connection for a facility, or undefined when none covers it. */
  forFacility(facility: string): TerminalAdapter | undefined;
  /** The in-process sandbox feed for shipments of the sandbox line (SCAC TEST), if any. */
  readonly sandbox?: TerminalAdapter;
  /** Facility codes covered, or "*" when an entry covers every facility (claim filter). */
  readonly facilities: readonly string[] | '*';
}
