import { lookupTerminal } from '../../sim/library.ts';
import { readSimTerminalAnswer } from './sim-terminal/read.ts';
import type { TerminalAdapter } from './types.ts';

// The sandbox line's terminal feed (SCAC TEST, no configuration): the simulator's terminal
// stories answered in-process from sim/library.ts, like the sandbox carrier
// (carriers/sandbox.ts), on the same epoch rule (the start of the UTC day of the first clock
// reading), so the sandbox's journeys and their terminal data agree.

const DAY = 86_400_000;

export function createSandboxTerminal(options: { clock?: () => Date; epoch?: Date } = {}): TerminalAdapter {
  const clock = options.clock ?? (() => new Date());
  const epochMs = options.epoch ? options.epoch.getTime() : Math.floor(clock().getTime() / DAY) * DAY;
  return {
    name: 'sandbox',
    covers: () => true,
    async check(query) {
      try {
        const answer = lookupTerminal(query.container, query.facility, { now: clock(), epoch: epochMs });
        const status = answer ? readSimTerminalAnswer(answer) : null;
        return status ? { kind: 'found', status } : { kind: 'not_found' };
      } catch (err) {
        return { kind: 'temporary_failure', detail: `sandbox terminal error: ${String(err).slice(0, 200)}` };
      }
    },
  };
}
