// Loads the hand-written DCSA payload fixtures and normalizes them with the real zone table.

import { readFileSync } from 'node:fs';
import type { NumberType } from '../../src/carriers/types.ts';
import { normalize } from '../../src/engine/normalize.ts';
import type { NormalizedSnapshot } from '../../src/engine/types.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';

export function loadFixture(name: string): unknown[] {
  return JSON.parse(readFileSync(new URL(`../fixtures/dcsa/${name}.json`, import.meta.url), 'utf8'));
}

export function normalizeFixture(name: string, numberType: NumberType, number: string): NormalizedSnapshot {
  return normalize(loadFixture(name), { numberType, number, zoneOf: zoneOfLocode });
}

/** Event names without the common prefix, in output order. */
export const names = (events: { event: string }[]): string[] =>
  events.map((e) => e.event.replace('container.transport.', ''));
