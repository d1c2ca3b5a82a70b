// Builds the terminal directory from validated TERMINALS_CONFIG entries: the one place terminal
// adapters are listed (ADAPTERS, keyed by the config's `adapter` name). Each entry gets its own
// request budget (shared by its token and API requests, as for carriers). The sandbox feed for
// the sandbox line (SCAC TEST) is always there; the engine uses it only while TEST is the
// built-in sandbox carrier.

import { createAuth } from '../carriers/auth.ts';
import { createRateBudget } from '../carriers/rate-budget.ts';
import type { TerminalAdapterName, TerminalConfigEntry } from '../config/terminals.ts';
import { createSandboxTerminal } from './sandbox.ts';
import { createSimTerminalAdapter } from './sim-terminal/adapter.ts';
import type { TerminalAdapter, TerminalDirectory } from './types.ts';

export interface TerminalRegistryOptions {
  /** Include the in-process feed for the sandbox line (default true; false when TEST is configured). */
  sandbox?: boolean;
  /** Clock of the sandbox feed (the sandbox carrier's). */
  clock?: () => Date;
  /** Longest wait for request budget within one check (default 5 s). */
  maxWaitMs?: number;
  defaultTimeoutMs?: number;
}

const ADAPTERS: Record<
  TerminalAdapterName,
  (entry: TerminalConfigEntry, options: TerminalRegistryOptions) => TerminalAdapter
> = {
  'sim-terminal': (entry, options) => {
    const timeoutMs = entry.timeout_ms ?? options.defaultTimeoutMs ?? 20_000;
    const budget = createRateBudget({
      requestsPerMinute: entry.requests_per_minute,
      maxWaitMs: options.maxWaitMs,
    });
    const codes = entry.facilities === '*' ? null : new Set(entry.facilities);
    return createSimTerminalAdapter({
      baseUrl: entry.base_url,
      covers: (facility) => codes === null || codes.has(facility.toUpperCase()),
      auth: entry.auth ? createAuth(entry.auth, { budget, timeoutMs }) : null,
      budget,
      timeoutMs,
    });
  },
};

export function buildTerminalDirectory(
  entries: readonly TerminalConfigEntry[],
  options: TerminalRegistryOptions = {},
): TerminalDirectory {
  const adapters = entries.map((e) => ADAPTERS[e.adapter](e, options));
  const all = entries.some((e) => e.facilities === '*');
  const facilities = all ? '*' : [...new Set(entries.flatMap((e) => e.facilities as string[]))];
  return {
    forFacility: (facility) => adapters.find((a) => a.covers(facility)),
    ...(options.sandbox === false ? {} : { sandbox: createSandboxTerminal({ clock: options.clock }) }),
    facilities,
  };
}
