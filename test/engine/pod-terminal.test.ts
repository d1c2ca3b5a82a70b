// The POD terminal is stable (issue 12): it changes only when the carrier's data says so, never
// goes back to null once known, and a reassignment (a newer estimate of the POD call naming
// another terminal) is announced as container.pod_terminal_changed.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_STATE } from '../../src/engine/apply.ts';
import { diff, type Plan, type Resolve, type StoredState, snapshotFacts } from '../../src/engine/diff.ts';
import { terminalBySmdg, zoneOfLocode } from '../../src/reference/data.ts';
import { call, equipment, transport } from './builders.ts';
import { normalizeDcsa } from './fixtures.ts';

const resolve: Resolve = {
  terminalId: (ref) => (ref ? (terminalBySmdg(ref.port_locode, ref.smdg_code)?.id ?? null) : null),
};
const ctx = { numberType: 'bill_of_lading' as const, number: 'BL1', zoneOf: zoneOfLocode };
const factsOf = (events: unknown[]) => snapshotFacts(normalizeDcsa(events, ctx), resolve);

/** The state a plan leaves behind (as engine/store.ts writes it). */
function applied(stored: StoredState, plan: Plan): StoredState {
  const containers = stored.containers.map((c) => {
    const u = plan.containerUpdates.find((x) => x.id === c.id);
    const added = plan.newEvents.filter((e) => e.container_number === c.number);
    const events = [...c.events, ...added.map((e) => ({ ...e.event, id: `${c.id}/${e.event.key}` }))];
    return { ...c, facts: { ...c.facts, ...u?.changes }, events };
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

const pol = call('CNYTN', { imo: '9778791', vessel: 'Maersk Essen', exp: '417E', facility: 'YICT' });
const podAt = (facility: string) =>
  call('USLAX', { imo: '9778791', vessel: 'Maersk Essen', imp: '417E', facility, id: 'LAX-CALL' });
const base = [
  equipment('LOAD', { at: '2024-05-03T05:00:00+08:00', call: pol, iso: '45G1' }),
  transport('DEPA', pol, { at: '2024-05-03T12:00:00+08:00' }),
  transport('ARRI', podAt('APMT'), {
    cls: 'PLN',
    at: '2024-05-17T06:00:00-07:00',
    created: '2024-04-20T00:00:00Z',
  }),
];
const reassigned = transport('ARRI', podAt('WBCT'), {
  cls: 'EST',
  at: '2024-05-17T08:00:00-07:00',
  created: '2024-05-10T00:00:00Z',
});

describe('POD terminal', () => {
  it('is the newest published terminal of the POD call; a reassignment is announced', () => {
    const first = factsOf(base);
    assert.equal(
      first.shipment.pod_terminal_id,
      resolve.terminalId({ port_locode: 'USLAX', smdg_code: 'APMT' }),
    );
    const stored = applied(EMPTY_STATE, diff(EMPTY_STATE, first, true));
    const next = factsOf([...base, reassigned]);
    const wbct = resolve.terminalId({ port_locode: 'USLAX', smdg_code: 'WBCT' });
    assert.ok(wbct);
    assert.equal(next.shipment.pod_terminal_id, wbct);
    const plan = diff(stored, next, false);
    const changed = plan.domainEvents.filter((d) => d.event === 'container.pod_terminal_changed');
    assert.equal(changed.length, 1);
    assert.deepEqual(changed[0]!.changeset, { pod_terminal_id: [first.shipment.pod_terminal_id, wbct] });
    // Applied, the same data plans nothing more.
    const again = diff(applied(stored, plan), next, false);
    assert.deepEqual(again.domainEvents, []);
  });

  it('never goes back to null while the POD stays the same', () => {
    const first = factsOf(base);
    const stored = applied(EMPTY_STATE, diff(EMPTY_STATE, first, true));
    // The carrier stops sending the plan of the POD call (only the departure is left).
    const next = factsOf(base.slice(0, 2));
    const plan = diff(stored, next, false);
    assert.ok(!('pod_terminal_id' in plan.shipment), JSON.stringify(plan.shipment));
    for (const u of plan.containerUpdates) assert.ok(!('pod_terminal_id' in u.changes));
    assert.ok(!plan.domainEvents.some((d) => d.event === 'container.pod_terminal_changed'));
  });
});
