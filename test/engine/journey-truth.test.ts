// Port roles read from the whole journey (issue 12): the simulator's journeys, as a poller sees them
// day by day, through the DCSA adapter's snapshot builder and the normalizer. Properties: order
// and duplication of the same carrier events never change the result, and no partial view of a
// journey whose plan is published ever puts the POD arrival at another port.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DcsaEvent, lookupNumber } from '../../sim/library.ts';
import { dcsaSnapshot } from '../../src/carriers/dcsa/snapshot.ts';
import type { NumberType } from '../../src/carriers/types.ts';
import { normalize } from '../../src/engine/normalize.ts';
import type { NormalizedSnapshot } from '../../src/engine/types.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';
import fc from '../helpers/fast-check.ts';
import { names } from './fixtures.ts';

const EPOCH = Date.parse('2026-01-01T00:00:00Z');
const DAY = 86_400_000;

function eventsAt(type: NumberType, number: string, day: number): DcsaEvent[] {
  const a = lookupNumber(type, number, { now: EPOCH + day * DAY, epoch: EPOCH });
  return a.kind === 'found' ? a.events : [];
}

const norm = (events: unknown[], type: NumberType, number: string): NormalizedSnapshot =>
  normalize(dcsaSnapshot(events), { numberType: type, number, zoneOf: zoneOfLocode });

/** The scenarios with a water journey, each with its true POL, POD and transshipment ports. */
const JOURNEYS: Array<{ type: NumberType; number: string; pod: string; ts: string[] }> = [
  { type: 'bill_of_lading', number: 'SIMTS0001', pod: 'NLRTM', ts: ['SGSIN'] },
  { type: 'container', number: 'SIMU2000001', pod: 'NLRTM', ts: ['SGSIN'] },
  { type: 'booking_number', number: 'BKGTS0001', pod: 'NLRTM', ts: ['SGSIN'] },
  { type: 'bill_of_lading', number: 'SIMBL3C0001', pod: 'DEHAM', ts: [] },
  { type: 'bill_of_lading', number: 'SIMRAIL0001', pod: 'USLAX', ts: [] },
  { type: 'bill_of_lading', number: 'SIMFDR0001', pod: 'NLRTM', ts: [] },
  { type: 'bill_of_lading', number: 'SIMHAUL0001', pod: 'DEHAM', ts: [] },
];

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

describe('journey properties (seeded)', () => {
  const dayArb = fc.integer({ min: 0, max: 62 });
  const journeyArb = fc.constantFrom(...JOURNEYS);

  it('any order and duplication of the same carrier events normalize alike', () => {
    fc.assert(
      fc.property(
        journeyArb,
        dayArb,
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (j, day, dupes, seed) => {
          const events = eventsAt(j.type, j.number, day);
          const noisy = [
            ...events,
            ...dupes.flatMap((d) => (events.length ? [events[d % events.length]!] : [])),
          ];
          // Deterministic shuffle from the seed (fast-check shrinks the seed, not the order).
          let x = seed || 1;
          const shuffled = noisy
            .map((e) => {
              x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
              return { e, k: x };
            })
            .sort((a, b) => a.k - b.k)
            .map((p) => p.e);
          const a = norm(events, j.type, j.number);
          const b = norm(shuffled, j.type, j.number);
          assert.deepEqual(
            { ...b, parsed_event_count: 0, skipped_event_count: 0 },
            { ...a, parsed_event_count: 0, skipped_event_count: 0 },
          );
        },
      ),
      { numRuns: 120 },
    );
  });

  it('no partial view of a planned journey puts the POD arrival or discharge at another port', () => {
    fc.assert(
      fc.property(
        journeyArb,
        dayArb,
        fc.array(fc.boolean(), { minLength: 200, maxLength: 200 }),
        (j, day, keep) => {
          const all = eventsAt(j.type, j.number, day);
          // Any subset of what happened, with the published plan (PLN/EST) always present.
          const partial = all.filter((e, i) => e.eventClassifierCode !== 'ACT' || keep[i % keep.length]);
          const n = norm(partial, j.type, j.number);
          assert.ok(
            [j.pod, null].includes(n.shipment.port_of_discharge_locode),
            n.shipment.port_of_discharge_locode!,
          );
          for (const c of n.containers) {
            for (const e of c.transport_events) {
              if (e.event.endsWith('.vessel_arrived') || e.event.endsWith('.vessel_discharged'))
                assert.equal(e.location_locode, j.pod, `${e.event} at ${e.location_locode}`);
              if (e.event.includes('transshipment_')) assert.ok(j.ts.includes(e.location_locode!), e.key);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
