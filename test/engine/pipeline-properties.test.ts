// Properties of the engine's pure functions over carrier snapshots: port roles, diff and the
// domain events it plans, and the tracking lifecycle. Snapshots come from the DCSA fixtures
// through the adapter's snapshot builder (as in production); every arbitrary is seeded
// (test/helpers/fast-check.ts).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NumberType } from '../../src/carriers/types.ts';
import { EMPTY_STATE } from '../../src/engine/apply.ts';
import { diff, type Plan } from '../../src/engine/diff.ts';
import {
  decideRequest,
  nextRefreshAt,
  retryDelayMs,
  stopReason,
  type WorkerConfig,
} from '../../src/engine/lifecycle.ts';
import { assignRoles, buildLegs, endpointRole, type Move } from '../../src/engine/roles.ts';
import fc from '../helpers/fast-check.ts';
import { FIXTURES, loadFixture } from './fixtures.ts';
import { applied, factsOf } from './pipeline-state.ts';

// --- Port roles -------------------------------------------------------------------------------

const LOCODES = ['CNSHA', 'SGSIN', 'NLRTM', 'DEHAM', 'USLAX'];
const VESSELS = [
  { imo: '9501368', name: 'ALPHA' },
  { imo: '9778791', name: 'BRAVO' },
  { imo: null, name: 'BARGE ONE' },
];
const DAY = 86_400_000;

const movesArb = fc
  .array(
    fc.record({
      kind: fc.constantFrom<'LOAD' | 'DISC'>('LOAD', 'DISC'),
      mode: fc.constantFrom<'vessel' | 'barge'>('vessel', 'vessel', 'barge'),
      actual: fc.boolean(),
      day: fc.option(fc.integer({ min: 0, max: 60 }), { nil: null }),
      created: fc.integer({ min: 0, max: 100 }),
      locode: fc.option(fc.constantFrom(...LOCODES), { nil: null, freq: 8 }),
      vessel: fc.constantFrom(...VESSELS),
    }),
    { maxLength: 14 },
  )
  .map((ms) =>
    ms.map(
      (m, i): Move => ({
        idx: i,
        kind: m.kind,
        mode: m.mode,
        actual: m.actual,
        timeMs: m.day === null ? null : m.day * DAY,
        createdMs: m.created,
        locode: m.locode,
        vesselImo: m.vessel.imo,
        vesselName: m.vessel.name,
        tiebreak: `t${String(i).padStart(3, '0')}`,
      }),
    ),
  );

const routeOf = (moves: Move[]) => {
  const route = assignRoles(buildLegs(moves));
  return {
    route,
    summary: {
      legs: route.legs.map((l) => [l.load?.idx ?? null, l.disc?.idx ?? null, l.mode, l.role]),
      pol: route.polLocode,
      pod: route.podLocode,
      transshipment: route.transshipmentLocodes,
    },
  };
};

describe('port roles (pure, over moves)', () => {
  it('do not depend on the order the moves arrive in', () => {
    fc.assert(
      fc.property(
        movesArb.chain((ms) =>
          fc.tuple(fc.constant(ms), fc.shuffledSubarray(ms, { minLength: ms.length, maxLength: ms.length })),
        ),
        ([moves, shuffled]) => {
          assert.deepEqual(routeOf(shuffled).summary, routeOf(moves).summary);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a chain of ocean legs on different vessels: first port POL, last POD, the ones between transshipments', () => {
    const chain = fc.uniqueArray(fc.constantFrom(...LOCODES), { minLength: 2, maxLength: 5 }).chain((ports) =>
      fc.tuple(
        fc.constant(ports),
        fc.array(fc.integer({ min: 3, max: 20 }), {
          minLength: ports.length - 1,
          maxLength: ports.length - 1,
        }),
      ),
    );
    fc.assert(
      fc.property(chain, ([ports, transitDays]) => {
        const moves: Move[] = [];
        let day = 0;
        transitDays.forEach((transit, i) => {
          const vessel = { vesselImo: String(9_100_000 + i), vesselName: `SHIP ${i}` };
          const base = { mode: 'vessel' as const, actual: true, createdMs: 0, ...vessel };
          moves.push({
            ...base,
            idx: moves.length,
            kind: 'LOAD',
            timeMs: day * DAY,
            locode: ports[i]!,
            tiebreak: `${i}L`,
          });
          day += transit;
          moves.push({
            ...base,
            idx: moves.length,
            kind: 'DISC',
            timeMs: day * DAY,
            locode: ports[i + 1]!,
            tiebreak: `${i}D`,
          });
          day += 1;
        });
        const { route } = routeOf(moves.toReversed());
        assert.equal(route.legs.length, transitDays.length);
        assert.equal(route.polLocode, ports[0]);
        assert.equal(route.podLocode, ports.at(-1));
        assert.deepEqual(route.transshipmentLocodes, ports.slice(1, -1));
      }),
      { numRuns: 200 },
    );
  });

  it('name POL, POD and transshipment ports from the mainline legs, each move used once', () => {
    fc.assert(
      fc.property(movesArb, (moves) => {
        const { route } = routeOf(moves);
        const used = route.legs.flatMap((l) => [l.load, l.disc]).filter((m) => m !== null);
        assert.equal(new Set(used).size, used.length, 'a move ends at most one leg');
        assert.ok(
          route.main.every((l) => route.legs.includes(l) && l.role === 'main'),
          'main legs are legs',
        );
        assert.equal(route.polLocode, route.main[0]?.load?.locode ?? null);
        assert.equal(route.podLocode, route.main.at(-1)?.disc?.locode ?? null);
        const ts = route.transshipmentLocodes;
        assert.equal(new Set(ts).size, ts.length, 'transshipment ports are distinct');
        for (const t of ts) assert.ok(t !== route.polLocode && t !== route.podLocode);
        for (const leg of route.legs) {
          if (leg.role === 'feeder') {
            assert.equal(endpointRole(route, leg, 'load'), 'feeder');
            continue;
          }
          const load = endpointRole(route, leg, 'load');
          const disc = endpointRole(route, leg, 'disc');
          assert.equal(load === 'pol', leg === route.main[0]);
          assert.equal(disc === 'pod', leg === route.main.at(-1));
        }
        if (moves.length > 0 && moves.every((m) => m.mode === 'vessel' && m.locode !== null))
          assert.ok(route.legs.length > 0, 'vessel moves make at least one leg');
      }),
      { numRuns: 400 },
    );
  });
});

// --- Diff and domain events -------------------------------------------------------------------

/** Two subsets of a fixture's events, the first contained in the second (an answer that grew). */
const growingAnswers = fc.constantFrom(...FIXTURES).chain(([name, numberType, number]) =>
  fc
    .subarray(loadFixture(name))
    .chain((later) => fc.tuple(fc.subarray(later), fc.constant(later)))
    .map(([earlier, later]) => ({ numberType, number, earlier, later })),
);

const transportRefs = (plan: Plan) =>
  plan.domainEvents.flatMap((d) =>
    d.reference.kind === 'transport_event' ? [`${d.container_number}|${d.reference.key}`] : [],
  );

describe('diff and domain events (pure, over snapshots)', () => {
  it('a state diffed against the snapshot it was built from plans nothing', () => {
    fc.assert(
      fc.property(growingAnswers, ({ numberType, number, later }) => {
        const facts = factsOf(later, numberType, number);
        const state = applied(EMPTY_STATE, diff(EMPTY_STATE, facts, true));
        const plan = diff(state, facts, false);
        assert.equal(plan.changed, false);
        assert.deepEqual(plan.domainEvents, []);
        assert.deepEqual(plan.estimates, []);
      }),
      { numRuns: 80 },
    );
  });

  it('the first snapshot is recorded whole and announced by nothing', () => {
    fc.assert(
      fc.property(growingAnswers, ({ numberType, number, later }) => {
        const facts = factsOf(later, numberType, number);
        const plan = diff(EMPTY_STATE, facts, true);
        assert.deepEqual(plan.domainEvents, []);
        assert.deepEqual(
          plan.newContainers.map((c) => c.number),
          facts.containers.map((c) => c.number),
        );
      }),
      { numRuns: 60 },
    );
  });

  it('a grown answer announces each new milestone once, in time order, and applying it converges', () => {
    fc.assert(
      fc.property(growingAnswers, ({ numberType, number, earlier, later }) => {
        const before = applied(EMPTY_STATE, diff(EMPTY_STATE, factsOf(earlier, numberType, number), true));
        const next = factsOf(later, numberType, number);
        const plan = diff(before, next, false);

        const refs = transportRefs(plan);
        assert.equal(new Set(refs).size, refs.length, 'each milestone announced at most once');
        const known = new Set(before.containers.flatMap((c) => c.events.map((e) => `${c.number}|${e.key}`)));
        const written = new Set([
          ...plan.newEvents.map((e) => `${e.container_number}|${e.event.key}`),
          ...plan.eventUpdates.map((e) => `${e.container_number}|${e.event.key}`),
          ...plan.newContainers.flatMap((c) => c.events.map((e) => `${c.number}|${e.key}`)),
        ]);
        for (const c of next.containers) {
          for (const e of c.events) {
            const k = `${c.number}|${e.key}`;
            if (!known.has(k)) assert.ok(refs.includes(k), `new milestone ${k} is announced`);
          }
        }
        for (const r of refs) assert.ok(written.has(r), `announced ${r} is written`);
        const times = plan.domainEvents.flatMap((d) => {
          if (d.reference.kind !== 'transport_event') return [];
          const key = d.reference.key;
          const c = next.containers.find((x) => x.number === d.container_number);
          return [c?.events.find((e) => e.key === key)?.timestamp ?? '\uffff'];
        });
        assert.deepEqual(times, [...times].sort(), 'transport events in journey order');
        for (const d of plan.domainEvents) {
          if (d.reference.kind === 'estimated_event') assert.ok(plan.estimates[d.reference.index]);
        }

        const after = applied(before, plan);
        const again = diff(after, next, false);
        assert.equal(again.changed, false, 'writing the plan reaches the snapshot');
        assert.deepEqual(again.domainEvents, []);
      }),
      { numRuns: 120 },
    );
  });
});

// --- Lifecycle --------------------------------------------------------------------------------

const cfgArb: fc.Arbitrary<WorkerConfig> = fc.record({
  pollIntervalMs: fc.constant(1000),
  leaseMs: fc.constant(60_000),
  concurrency: fc.constant(4),
  retryBaseMs: fc.integer({ min: 1, max: 10_000_000 }),
  retryMax: fc.integer({ min: 0, max: 20 }),
  awaitingManifestIntervalMs: fc.integer({ min: 1, max: DAY }),
  awaitingManifestMaxMs: fc.integer({ min: 1, max: 30 * DAY }),
  refreshIntervalMs: fc.integer({ min: 1, max: DAY }),
  refreshNearArrivalMs: fc.integer({ min: 1, max: DAY }),
  arrivalWindowMs: fc.integer({ min: 1, max: 60 * DAY }),
  fullOutWindowMs: fc.integer({ min: 1, max: 60 * DAY }),
  noUpdatesWindowMs: fc.integer({ min: 1, max: 60 * DAY }),
});
const NOW = Date.parse('2026-03-01T00:00:00Z');
const instant = fc.option(
  fc.integer({ min: NOW - 90 * DAY, max: NOW + 90 * DAY }).map((ms) => new Date(ms).toISOString()),
  { nil: null },
);
const timelineArb = fc.record({
  pod_eta_at: instant,
  pod_ata_at: instant,
  containers: fc.array(
    fc.record({
      pod_full_out_at: instant,
      final_destination_full_out_at: instant,
      empty_terminated_at: instant,
    }),
    { maxLength: 4 },
  ),
});

describe('tracking lifecycle (pure)', () => {
  it('retry delays grow, start at the base and stay under 12 hours', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 10_000_000 }), (n, base) => {
        assert.ok(retryDelayMs(n, base) <= retryDelayMs(n + 1, base));
        assert.ok(retryDelayMs(n, base) <= 12 * 3_600_000);
        assert.equal(retryDelayMs(1, base), Math.min(base, 12 * 3_600_000));
      }),
    );
  });

  it('a temporary failure retries after the back-off and any Retry-After, until the retries run out', () => {
    fc.assert(
      fc.property(
        cfgArb,
        fc.integer({ min: 0, max: 25 }),
        fc.option(fc.integer({ min: 0, max: DAY }), { nil: undefined }),
        (cfg, retries, retryAfterMs) => {
          const d = decideRequest(
            { request_type: 'bill_of_lading', retry_count: retries, awaiting_manifest_since: null },
            {
              kind: 'temporary_failure',
              reason: 'shipping_line_unreachable',
              detail: 'x',
              ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
            },
            new Date(NOW),
            cfg,
          );
          if (retries + 1 > cfg.retryMax) {
            assert.deepEqual(d, { kind: 'fail', reason: 'retries_exhausted' });
            return;
          }
          assert.equal(d.kind, 'retry');
          if (d.kind !== 'retry') return;
          assert.equal(d.retryCount, retries + 1);
          const wait = d.nextAttemptAt.getTime() - NOW;
          assert.ok(wait >= retryDelayMs(retries + 1, cfg.retryBaseMs) && wait >= (retryAfterMs ?? 0));
        },
      ),
    );
  });

  it('not found fails a container at once; documents wait for the manifest up to the limit', () => {
    fc.assert(
      fc.property(
        cfgArb,
        fc.constantFrom<NumberType>('bill_of_lading', 'booking_number', 'container'),
        fc.option(fc.integer({ min: 0, max: 60 * DAY }), { nil: null }),
        (cfg, type, waitedMs) => {
          const since = waitedMs === null ? null : new Date(NOW - waitedMs);
          const d = decideRequest(
            { request_type: type, retry_count: 0, awaiting_manifest_since: since },
            { kind: 'not_found' },
            new Date(NOW),
            cfg,
          );
          if (type === 'container' || (waitedMs ?? 0) >= cfg.awaitingManifestMaxMs) {
            assert.deepEqual(d, { kind: 'fail', reason: 'not_found' });
            return;
          }
          assert.equal(d.kind, 'await_manifest');
          if (d.kind !== 'await_manifest') return;
          assert.equal(d.firstTime, since === null);
          assert.equal(d.nextAttemptAt.getTime(), NOW + cfg.awaitingManifestIntervalMs);
        },
      ),
    );
  });

  it('the next refresh is one of the two cadences from now', () => {
    fc.assert(
      fc.property(cfgArb, timelineArb, (cfg, t) => {
        const wait = nextRefreshAt(t, new Date(NOW), cfg).getTime() - NOW;
        assert.ok(wait === cfg.refreshIntervalMs || wait === cfg.refreshNearArrivalMs);
        if (t.pod_ata_at === null && t.pod_eta_at === null) assert.equal(wait, cfg.refreshIntervalMs);
      }),
    );
  });

  it('tracking stops for a cancelled booking or returned empties, never for a fresh quiet journey', () => {
    fc.assert(
      fc.property(cfgArb, timelineArb, fc.boolean(), (cfg, t, cancelled) => {
        const reason = stopReason(
          { ...t, last_changed_at: new Date(NOW), booking_cancelled: cancelled },
          new Date(NOW),
          cfg,
        );
        if (cancelled) assert.equal(reason, 'booking_cancelled');
        else if (t.containers.length > 0 && t.containers.every((c) => c.empty_terminated_at))
          assert.equal(reason, 'all_containers_terminated');
        const quiet = { pod_eta_at: t.pod_eta_at, pod_ata_at: null, containers: [] };
        assert.equal(
          stopReason(
            { ...quiet, last_changed_at: new Date(NOW), booking_cancelled: false },
            new Date(NOW),
            cfg,
          ),
          null,
        );
      }),
    );
  });
});
