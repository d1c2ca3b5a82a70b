import { resolveReference } from './scenarios.ts';
import { type TerminalFeedAnswer, terminalAnswer } from './terminal-feed.ts';

// The terminal feed's question: container + SMDG facility at a simulated instant. The container
// resolves like a carrier EQ lookup (any container of a journey built so far, or the SIMU rule).

export function lookupTerminal(
  container: string,
  facility: string,
  clock: { now: Date | number; epoch: Date | number },
): TerminalFeedAnswer | undefined {
  const epochMs = new Date(clock.epoch).getTime();
  const resolved = resolveReference('EQ', container, epochMs);
  if (resolved?.kind !== 'shipment') return undefined;
  const number = container.trim().toUpperCase();
  return terminalAnswer(
    resolved.shipment.terminalScript,
    resolved.shipment.events,
    number,
    facility,
    new Date(clock.now).getTime(),
  );
}
