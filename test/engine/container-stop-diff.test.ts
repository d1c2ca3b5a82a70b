// A carrier answer that still names a container a user stopped (engine/container-tracking.ts):
// the diff reads nothing of it. Its facts and events stay as stored, no estimate or other domain
// event names it, while its sibling in the same answer moves on and the shipment's own facts
// follow the answer.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EMPTY_STATE } from '../../src/engine/apply.ts';
import { diff, type Resolve, type StoredState, snapshotFacts } from '../../src/engine/diff.ts';
import { terminalBySmdg, zoneOfLocode } from '../../src/reference/data.ts';
import { call, equipment, transport } from './builders.ts';
import { normalizeDcsa } from './fixtures.ts';
import { applied } from './pipeline-state.ts';

const resolve: Resolve = {
  terminalId: (ref) => (ref ? (terminalBySmdg(ref.port_locode, ref.smdg_code)?.id ?? null) : null),
};
const factsOf = (events: unknown[]) =>
  snapshotFacts(
    normalizeDcsa(events, { numberType: 'bill_of_lading', number: 'BL1', zoneOf: zoneOfLocode }),
    resolve,
  );

const A = 'MSKU7000013';
const B = 'CSQU3054383';
const v = { imo: '9778791', vessel: 'Maersk Essen', exp: '417E', imp: '417E' };
const pol = call('CNYTN', { ...v, facility: 'YICT' });
const pod = call('USLAX', { ...v, facility: 'APMT' });
const loaded = [A, B].map((container) =>
  equipment('LOAD', { container, at: '2024-05-03T05:00:00+08:00', call: pol, iso: '45G1' }),
);
const depart = transport('DEPA', pol, { at: '2024-05-03T12:00:00+08:00' });
const eta = (at: string, created: string) => transport('ARRI', pod, { cls: 'EST', at, created });
const arrive = transport('ARRI', pod, { at: '2024-05-17T06:00:00-07:00' });
const discharged = [A, B].map((container) =>
  equipment('DISC', { container, at: '2024-05-18T02:00:00-07:00', call: pod }),
);

function stopped(state: StoredState, number: string): StoredState {
  return {
    ...state,
    containers: state.containers.map((c) => (c.number === number ? { ...c, stopped: true } : c)),
  };
}

describe('a stopped container in a carrier answer', () => {
  const first = [...loaded, depart, eta('2024-05-17T06:00:00-07:00', '2024-05-01T00:00:00Z')];
  const later = [
    ...loaded,
    depart,
    eta('2024-05-18T06:00:00-07:00', '2024-05-10T00:00:00Z'),
    arrive,
    ...discharged,
  ];

  it('is read for its sibling only: no write and no domain event names it', () => {
    const start = applied(EMPTY_STATE, diff(EMPTY_STATE, factsOf(first), true));
    assert.deepEqual(start.containers.map((c) => c.number).sort(), [A, B].sort());
    const plan = diff(stopped(start, A), factsOf(later), false);

    const names = (xs: Array<{ container_number?: string | null; number?: string }>) =>
      xs.map((x) => x.container_number ?? x.number);
    assert.ok(!names(plan.containerUpdates).includes(A), 'no update of the stopped box');
    assert.ok(!names(plan.newEvents).includes(A));
    assert.ok(!names(plan.eventUpdates).includes(A));
    assert.ok(!names(plan.eventInvalidations).includes(A));
    assert.ok(!names(plan.estimates).includes(A), 'no estimate for the stopped box');
    assert.ok(!names(plan.domainEvents).includes(A), 'nothing announced for the stopped box');
    assert.deepEqual(plan.newContainers, []);

    // The sibling moves on, and so does the shipment.
    const b = plan.containerUpdates.find((u) => u.number === B);
    assert.ok(b?.changes.pod_discharged_at, 'the sibling is discharged');
    assert.ok(
      plan.domainEvents.some((d) => d.container_number === B && d.event.endsWith('vessel_discharged')),
    );
    assert.ok(plan.domainEvents.some((d) => d.container_number === B && d.event.includes('estimated')));
    assert.ok(plan.shipment.pod_ata_at, 'the shipment arrived');
    assert.ok(plan.domainEvents.some((d) => d.event === 'shipment.estimated.arrival'));
  });

  it('resumed, it catches up on the same answer', () => {
    const start = applied(EMPTY_STATE, diff(EMPTY_STATE, factsOf(first), true));
    const whileStopped = applied(stopped(start, A), diff(stopped(start, A), factsOf(later), false));
    const resumed = {
      ...whileStopped,
      containers: whileStopped.containers.map((c) => ({ ...c, stopped: false })),
    };
    const plan = diff(resumed, factsOf(later), false);
    assert.deepEqual(
      plan.containerUpdates.map((u) => u.number),
      [A],
    );
    assert.ok(plan.containerUpdates[0]!.changes.pod_discharged_at);
    assert.ok(
      plan.domainEvents.some((d) => d.container_number === A && d.event.endsWith('vessel_discharged')),
    );
  });
});
