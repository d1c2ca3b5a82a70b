// The engine's pure stored-state pipeline for property tests: a normalized answer's facts
// (snapshotFacts), and what store.ts writes for a diff's plan, applied to an in-memory state.

import type { NumberType } from '../../src/carriers/types.ts';
import { type Plan, type Resolve, type StoredState, snapshotFacts } from '../../src/engine/diff.ts';
import { terminalBySmdg, zoneOfLocode } from '../../src/reference/data.ts';
import { normalizeDcsa } from './fixtures.ts';

export const resolve: Resolve = {
  terminalId: (ref) => (ref ? (terminalBySmdg(ref.port_locode, ref.smdg_code)?.id ?? null) : null),
};

export type Facts = ReturnType<typeof snapshotFacts>;

export const factsOf = (events: unknown[], numberType: NumberType, number: string): Facts =>
  snapshotFacts(normalizeDcsa(events, { numberType, number, zoneOf: zoneOfLocode }), resolve);

/** What store.ts writes for a plan, on the in-memory state (ids made up). */
export function applied(stored: StoredState, plan: Plan): StoredState {
  const containers = stored.containers.map((c) => {
    const update = plan.containerUpdates.find((u) => u.id === c.id);
    const events = c.events.map((e) => {
      const u = plan.eventUpdates.find((x) => x.id === e.id);
      if (u) return { ...u.event, id: e.id, invalidated_at: null };
      // Invalidated events are kept, marked (engine/store.ts).
      const gone = plan.eventInvalidations.some((x) => x.id === e.id);
      return gone ? { ...e, invalidated_at: '2026-01-01T00:00:00.000Z' } : e;
    });
    for (const n of plan.newEvents.filter((x) => x.container_number === c.number))
      events.push({ ...n.event, id: `${c.id}/${n.event.key}` });
    return { ...c, facts: { ...c.facts, ...update?.changes }, events };
  });
  for (const n of plan.newContainers) {
    const id = `c:${n.number}`;
    containers.push({
      id,
      number: n.number,
      facts: n.facts,
      events: n.events.map((e) => ({ ...e, id: `${id}/${e.key}` })),
    });
  }
  return { shipment: { ...stored.shipment, ...plan.shipment }, containers };
}
