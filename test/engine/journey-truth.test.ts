// Port roles read from the whole journey (issue 12): the simulator's journeys, as a poller sees them
// day by day, through the DCSA adapter's snapshot builder and the normalizer. Properties: order
// and duplication of the same carrier events never change the result, and no partial view of a
// journey whose plan is published ever puts the POD arrival at another port.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { JourneyKind } from '../../sim/journeys.ts';
import { type DcsaEvent, lookupNumber } from '../../sim/library.ts';
import { dcsaSnapshot } from '../../src/carriers/dcsa/snapshot.ts';
import type { NumberType } from '../../src/carriers/types.ts';
import { EMPTY_STATE } from '../../src/engine/apply.ts';
import { diff } from '../../src/engine/diff.ts';
import { normalize } from '../../src/engine/normalize.ts';
import type { NormalizedSnapshot } from '../../src/engine/types.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';
import fc from '../helpers/fast-check.ts';
import { names } from './fixtures.ts';
import { applied, factsOf } from './pipeline-state.ts';

const EPOCH = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;

function eventsAt(type: NumberType, number: string, day: number): DcsaEvent[] {
  const a = lookupNumber(type, number, { now: EPOCH + day * DAY, epoch: EPOCH });
  return a.kind === 'found' ? a.events : [];
}

const norm = (events: unknown[], type: NumberType, number: string): NormalizedSnapshot =>
  normalize(dcsaSnapshot(events), { numberType: type, number, zoneOf: zoneOfLocode });

interface Case {
  type: NumberType;
  number: string;
  /** Ports the published plan names as the POD at some point (a roll moves it). */
  plannedPods: string[];
  /** The only port where the box arrives at and is discharged from the POD (null: never). */
  pod: string | null;
  ts: string[];
}

const one = (type: NumberType, number: string, pod: string | null, ts: string[] = []): Case => ({
  type,
  number,
  plannedPods: pod ? [pod] : [],
  pod,
  ts,
});

/**
 * Every journey kind of the simulator (sim/journeys.ts), each with its true POD and transshipment
 * ports; typed by JourneyKind so that a new kind cannot be left out.
 */
const BY_KIND: Record<JourneyKind, Case[]> = {
  direct: [one('bill_of_lading', 'SIMBL3C0001', 'DEHAM'), one('container', 'SIMU1000007', 'DEHAM')],
  transshipment: [
    one('bill_of_lading', 'SIMTS0001', 'NLRTM', ['SGSIN']),
    one('container', 'SIMU2000001', 'NLRTM', ['SGSIN']),
    one('booking_number', 'BKGTS0001', 'NLRTM', ['SGSIN']),
  ],
  barge: [one('bill_of_lading', 'SIMFDR0001', 'NLRTM'), one('container', 'SIMU3000006', 'NLRTM')],
  rail: [one('bill_of_lading', 'SIMRAIL0001', 'USLAX'), one('container', 'SIMU4000000', 'USLAX')],
  eta: [one('bill_of_lading', 'SIMETA0001', 'USLGB'), one('container', 'SIMU5000005', 'USLGB')],
  roll: [
    { ...one('bill_of_lading', 'SIMROLL0001', 'NLRTM'), plannedPods: ['DEHAM', 'NLRTM'] },
    { ...one('container', 'SIMU6000000', 'NLRTM'), plannedPods: ['DEHAM', 'NLRTM'] },
  ],
  empty: [one('bill_of_lading', 'SIMEMPTY0001', 'SGSIN')],
  late: [one('bill_of_lading', 'SIMLATE0001', 'DEHAM'), one('booking_number', 'BKGLATE0001', 'DEHAM')],
  cancelled: [one('booking_number', 'BKGCANC0001', null)],
  flaky: [one('bill_of_lading', 'SIMFLAKY0001', 'DEHAM')],
  booking: [one('booking_number', 'SIMBKG0001', 'NLRTM'), one('bill_of_lading', 'BOLBKG0001', 'NLRTM')],
  haulage: [one('bill_of_lading', 'SIMHAUL0001', 'DEHAM')],
  reassign: [one('bill_of_lading', 'SIMTERM0001', 'DEHAM')],
  terminal: [one('bill_of_lading', 'SIMTAVL0001', 'USLGB'), one('booking_number', 'BKGTHOLD0001', 'USLGB')],
  'terminal-reassign': [one('bill_of_lading', 'SIMTREAS0001', 'USLGB')],
  demo: [one('bill_of_lading', 'TEST-TR-SUCCEEDED', 'USLGB'), one('container', 'TEST-TR-SUCCEEDED', 'USLGB')],
};
const JOURNEYS: Case[] = Object.values(BY_KIND).flat();

describe('transshipment journey read day by day (SIMTS)', () => {
  it('the transshipment port is never the POD; the box stays on_ship there; milestones at the real POD', () => {
    let sawTransshipment = false;
    for (let day = 0; day <= 62; day++) {
      const n = norm(eventsAt('bill_of_lading', 'SIMTS0001', day), 'bill_of_lading', 'SIMTS0001');
      const s = n.shipment;
      assert.equal(s.port_of_discharge_locode, 'NLRTM', `day ${day}`);
      assert.equal(s.port_of_lading_locode, 'CNSGH', `day ${day}`);
      assert.deepEqual(s.transshipment_locodes, ['SGSIN'], `day ${day}`);
      assert.ok(s.pod_eta_at, `day ${day}: the POD ETA is known from the plan`);
      const c = n.containers[0]!;
      const at = (name: string) =>
        c.transport_events
          .filter((e) => e.event === `container.transport.${name}`)
          .map((e) => e.location_locode);
      for (const name of ['vessel_arrived', 'vessel_discharged']) {
        for (const where of at(name)) assert.equal(where, 'NLRTM', `day ${day}: ${name} at ${where}`);
      }
      if (at('transshipment_discharged').length > 0 && at('vessel_arrived').length === 0) {
        sawTransshipment = true;
        assert.equal(c.current_status, 'on_ship', `day ${day}`);
        assert.equal(s.pod_ata_at, null, `day ${day}`);
        assert.equal(c.pod_arrived_at, null);
        assert.equal(c.pod_discharged_at, null);
      }
    }
    assert.ok(sawTransshipment, 'the journey has days at the transshipment port');
    const end = norm(eventsAt('bill_of_lading', 'SIMTS0001', 62), 'bill_of_lading', 'SIMTS0001');
    assert.deepEqual(names(end.containers[0]!.transport_events), [
      'empty_out',
      'full_in',
      'vessel_loaded',
      'vessel_departed',
      'transshipment_arrived',
      'transshipment_discharged',
      'transshipment_loaded',
      'transshipment_departed',
      'vessel_arrived',
      'vessel_discharged',
      'full_out',
      'empty_in',
    ]);
  });
});

/** Deterministic shuffle with repetitions, from a seed (fast-check shrinks the seed, not the order). */
function noisy<T>(events: T[], dupes: number[], seed: number): T[] {
  const all = [...events, ...dupes.flatMap((d) => (events.length ? [events[d % events.length]!] : []))];
  let x = seed || 1;
  return all
    .map((e) => {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
      return { e, k: x };
    })
    .sort((a, b) => a.k - b.k)
    .map((p) => p.e);
}

/** Any subset of what the carrier reported, with the published plan (PLN) always present. */
const partialOf = (events: DcsaEvent[], keep: boolean[]) =>
  events.filter((e, i) => e.eventClassifierCode === 'PLN' || keep[i % keep.length]);

const isPodCall = (event: string) =>
  event.endsWith('.vessel_arrived') || event.endsWith('.vessel_discharged');

describe('journey properties over every journey kind (seeded)', () => {
  const dayArb = fc.integer({ min: 0, max: 62 });
  const journeyArb = fc.constantFrom(...JOURNEYS);
  const keepArb = fc.array(fc.boolean(), { minLength: 120, maxLength: 120 });

  it('covers every journey kind, each found within 62 days', () => {
    for (const [kind, cases] of Object.entries(BY_KIND)) {
      assert.ok(cases.length > 0, kind);
      for (const j of cases) assert.ok(eventsAt(j.type, j.number, 62).length > 0, `${kind}: ${j.number}`);
    }
  });

  it('any order and duplication of the same carrier events normalize alike, for every journey', () => {
    fc.assert(
      fc.property(dayArb, fc.array(fc.nat(), { maxLength: 12 }), fc.nat(), (day, dupes, seed) => {
        for (const j of JOURNEYS) {
          const events = eventsAt(j.type, j.number, day);
          const a = norm(events, j.type, j.number);
          const b = norm(noisy(events, dupes, seed), j.type, j.number);
          assert.deepEqual(
            { ...b, parsed_event_count: 0, skipped_event_count: 0 },
            { ...a, parsed_event_count: 0, skipped_event_count: 0 },
            `${j.number} day ${day}`,
          );
        }
      }),
      { numRuns: 40 },
    );
  });

  it('no partial view of a planned journey puts the POD arrival or discharge at another port', () => {
    fc.assert(
      fc.property(journeyArb, dayArb, keepArb, (j, day, keep) => {
        const n = norm(partialOf(eventsAt(j.type, j.number, day), keep), j.type, j.number);
        const s = n.shipment;
        assert.ok(
          s.port_of_discharge_locode === null || j.plannedPods.includes(s.port_of_discharge_locode),
          `${j.number} day ${day}: POD ${s.port_of_discharge_locode}`,
        );
        if (s.pod_ata_at) assert.equal(s.port_of_discharge_locode, j.pod, `${j.number}: arrived at the POD`);
        for (const c of n.containers) {
          if (c.pod_arrived_at || c.pod_discharged_at) assert.equal(s.port_of_discharge_locode, j.pod);
          for (const e of c.transport_events) {
            if (isPodCall(e.event))
              assert.equal(e.location_locode, j.pod, `${e.event} at ${e.location_locode}`);
            if (e.event.includes('transshipment_')) assert.ok(j.ts.includes(e.location_locode!), e.key);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('no sequence of partial readings stored by the engine leaves the POD arrival at another port; the last reading, reordered and repeated, changes nothing', () => {
    fc.assert(
      fc.property(
        journeyArb,
        fc.array(fc.tuple(dayArb, keepArb), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat(),
        (j, readings, dupes, seed) => {
          let state = EMPTY_STATE;
          let last: DcsaEvent[] = [];
          const days = readings.map(([d]) => d).sort((a, b) => a - b);
          days.forEach((day, i) => {
            last = partialOf(eventsAt(j.type, j.number, day), readings[i]![1]);
            const facts = factsOf(last, j.type, j.number);
            state = applied(state, diff(state, facts, i === 0));
            const s = state.shipment;
            const where = `${j.number} reading ${i} (day ${day})`;
            assert.ok(
              s.port_of_discharge_locode == null || j.plannedPods.includes(s.port_of_discharge_locode),
              `${where}: POD ${s.port_of_discharge_locode}`,
            );
            if (s.pod_ata_at) assert.equal(s.port_of_discharge_locode, j.pod, `${where}: pod_ata_at`);
            for (const c of state.containers) {
              if (c.facts.pod_arrived_at) assert.equal(s.port_of_discharge_locode, j.pod, where);
              for (const e of c.events) {
                if (e.invalidated_at || !isPodCall(e.event)) continue;
                assert.equal(e.location_locode, j.pod, `${where}: ${e.event} at ${e.location_locode}`);
              }
            }
          });
          const again = diff(state, factsOf(noisy(last, dupes, seed), j.type, j.number), false);
          assert.equal(again.changed, false, `${j.number}: the same events in another order`);
          assert.deepEqual(again.domainEvents, []);
        },
      ),
      { numRuns: 150 },
    );
  });
});
