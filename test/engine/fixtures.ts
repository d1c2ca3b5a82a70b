// Loads the hand-written DCSA payload fixtures and normalizes them with the real zone table:
// through the DCSA adapter's snapshot builder, as the engine receives them.

import { readFileSync } from 'node:fs';
import { dcsaSnapshot } from '../../src/carriers/dcsa/snapshot.ts';
import type { NumberType } from '../../src/carriers/types.ts';
import { type NormalizeContext, normalize, normalizeUnchecked } from '../../src/engine/normalize.ts';
import type { NormalizedSnapshot } from '../../src/engine/types.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';

/** The DCSA fixtures with the number each answers for. */
export const FIXTURES: [name: string, numberType: NumberType, number: string][] = [
  ['direct', 'bill_of_lading', 'HLCUSHA2403ABC1'],
  ['transshipment', 'bill_of_lading', 'CMDUKRP2405001'],
  ['rail', 'container', 'MSKU7000013'],
  ['feeder', 'booking_number', 'SGNA41250900'],
  ['replan', 'bill_of_lading', 'HLCUSHA2401XYZ9'],
  ['msc-quirks', 'container', 'MSCU1234566'],
];

export function loadFixture(name: string): unknown[] {
  return JSON.parse(readFileSync(new URL(`../fixtures/dcsa/${name}.json`, import.meta.url), 'utf8'));
}

/** Raw DCSA events -> carrier snapshot -> normalized snapshot. */
export function normalizeDcsa(events: unknown[], ctx: NormalizeContext): NormalizedSnapshot {
  return normalize(dcsaSnapshot(events), ctx);
}

/** normalizeDcsa() without the normalizer's safety net. */
export function normalizeDcsaUnchecked(events: unknown[], ctx: NormalizeContext): NormalizedSnapshot {
  return normalizeUnchecked(dcsaSnapshot(events), ctx);
}

export function normalizeFixture(name: string, numberType: NumberType, number: string): NormalizedSnapshot {
  return normalizeDcsa(loadFixture(name), { numberType, number, zoneOf: zoneOfLocode });
}

/** Event names without the common prefix, in output order. */
export const names = (events: { event: string }[]): string[] =>
  events.map((e) => e.event.replace('container.transport.', ''));
