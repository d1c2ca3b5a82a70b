// Which stored events a recomputation invalidates (engine/diff.ts): an event that reads differently
// now (another event at the same place) is invalidated and its milestones recomputed; an event the
// carrier merely stopped sending is kept, and so are its milestones.

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
const factsOf = (events: unknown[]) =>
  snapshotFacts(
    normalizeDcsa(events, { numberType: 'bill_of_lading', number: 'BL1', zoneOf: zoneOfLocode }),
    resolve,
  );

function applied(stored: StoredState, plan: Plan): StoredState {
  const containers = plan.newContainers.map((n) => ({
    id: `c:${n.number}`,
    number: n.number,
    facts: n.facts,
    events: n.events.map((e) => ({ ...e, id: `c:${n.number}/${e.key}`, invalidated_at: null })),
  }));
  return { shipment: { ...stored.shipment, ...plan.shipment }, containers };
}

const v1 = { imo: '9778791', vessel: 'ONE', exp: '1E', imp: '1E' };
const v2 = { imo: '9501368', vessel: 'TWO', exp: '2W', imp: '2W' };
const load = equipment('LOAD', { at: '2024-05-03T05:00:00+08:00', call: call('CNSHA', v1) });
const depart = transport('DEPA', call('CNSHA', v1), { at: '2024-05-03T12:00:00+08:00' });
const arrive = transport('ARRI', call('SGSIN', v1), { at: '2024-05-09T06:00:00+08:00' });
const disc = equipment('DISC', { at: '2024-05-09T12:00:00+08:00', call: call('SGSIN', v1) });
const onward = transport('DEPA', call('SGSIN', v2), {
  cls: 'PLN',
  at: '2024-05-12T12:00:00+08:00',
  created: '2024-05-01T00:00:00Z',
});
const pod = transport('ARRI', call('NLRTM', v2), {
  cls: 'PLN',
  at: '2024-06-02T12:00:00+02:00',
  created: '2024-05-01T00:00:00Z',
});

describe('invalidation', () => {
  it('a port first read as the POD and then as a transshipment: events invalidated, milestones recomputed', () => {
    const first = factsOf([load, depart, arrive, disc]);
    assert.equal(first.shipment.port_of_discharge_locode, 'SGSIN');
    const stored = applied(EMPTY_STATE, diff(EMPTY_STATE, first, true));
    assert.ok(stored.shipment.pod_ata_at);
    const plan = diff(stored, factsOf([load, depart, arrive, disc, onward, pod]), false);
    assert.deepEqual(plan.eventInvalidations.map((i) => i.event).sort(), [
      'container.transport.vessel_arrived',
      'container.transport.vessel_discharged',
    ]);
    assert.equal(plan.shipment.pod_ata_at, null);
    assert.equal(plan.shipment.port_of_discharge_locode, 'NLRTM');
    const u = plan.containerUpdates[0]!;
    assert.equal(u.changes.pod_arrived_at, null);
    assert.equal(u.changes.current_status, 'on_ship');
    assert.ok(plan.domainEvents.some((d) => d.event === 'container.transport.transshipment_arrived'));
  });

  it('events the carrier stops sending are kept, and so are their milestones', () => {
    const all = factsOf([load, depart, arrive, disc]);
    const stored = applied(EMPTY_STATE, diff(EMPTY_STATE, all, true));
    // Only the departure side is still in the answer: nothing at SGSIN reads differently.
    const plan = diff(stored, factsOf([load, depart]), false);
    assert.deepEqual(plan.eventInvalidations, []);
    assert.ok(!('pod_ata_at' in plan.shipment));
    for (const c of plan.containerUpdates) assert.ok(!('pod_arrived_at' in c.changes));
  });

  it('an arrival at the berth (BRTH) is another event than the arrival in port, not its correction', () => {
    const inPort = transport('ARRI', call('SGSIN', { ...v1, facilityType: 'POTE' }), {
      at: '2024-05-09T06:00:00+08:00',
    });
    const atBerth = transport('ARRI', call('SGSIN', { ...v1, facilityType: 'BRTH' }), {
      at: '2024-05-09T09:00:00+08:00',
    });
    const facts = factsOf([load, depart, inPort, atBerth, disc]);
    const names = facts.containers[0]!.events.map((e) => e.event.replace('container.transport.', ''));
    assert.ok(names.includes('vessel_arrived'), names.join(','));
    assert.ok(names.includes('vessel_berthed'), names.join(','));
    assert.equal(facts.shipment.pod_ata_at, '2024-05-08T22:00:00.000Z');
  });
});
