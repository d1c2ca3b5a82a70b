// The simulator's 3.0.0 answers (sim/v3.ts): every scenario, at several simulated days, is valid
// against DCSA's 3.0.0 schema and reads through the 3.0.0 adapter's snapshot into exactly what the
// 2.2 answer reads into (the normalizer's whole output), so either adapter tracks the same journey.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lookupNumber, scenarioTable } from '../../sim/library.ts';
import { toV3 } from '../../sim/v3.ts';
import { dcsaSnapshot } from '../../src/carriers/dcsa/snapshot.ts';
import { dcsaV3Snapshot } from '../../src/carriers/dcsa-v3/snapshot.ts';
import type { NumberType } from '../../src/carriers/types.ts';
import { normalize } from '../../src/engine/normalize.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';
import { validateV3Response } from './dcsa-schema.ts';

const EPOCH = Date.parse('2026-01-01T00:00:00Z');
const DAYS = [0, 5, 12, 30, 60];

describe('simulator 3.0.0 answers', () => {
  const cases = scenarioTable().flatMap((s) =>
    Object.entries(s.examples).map(([type, number]) => ({ type: type as NumberType, number: number! })),
  );
  it('covers every scenario', () => assert.ok(cases.length >= scenarioTable().length));

  for (const { type, number } of cases) {
    it(`${type} ${number}: schema-valid, and reads as the 2.2 answer does`, () => {
      for (const day of DAYS) {
        const a = lookupNumber(type, number, { now: EPOCH + day * 86_400_000, epoch: EPOCH });
        if (a.kind !== 'found') continue;
        const v3 = a.events.map(toV3);
        assert.deepEqual(validateV3Response({ events: v3 }), [], `day ${day}`);
        const ctx = { numberType: type, number, zoneOf: zoneOfLocode };
        assert.deepEqual(
          normalize(dcsaV3Snapshot(v3), ctx),
          normalize(dcsaSnapshot(a.events), ctx),
          `${number} day ${day}`,
        );
      }
    });
  }
});
