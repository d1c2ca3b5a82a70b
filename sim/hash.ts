import { uuidV5 } from '../src/util/uuid.ts';

// Everything the simulator invents (ids, jitter, vessels, container serials) comes from hashes of
// the tracking number, so the same number always tells the same story without any stored state.

const NAMESPACE = Buffer.from('2b8f0c6e5a4d4c1b9e7f3a2d1c0b9a88', 'hex');

/** A stable UUID for a name (event ids, transport call ids). */
export function simUuid(name: string): string {
  return uuidV5(name, NAMESPACE);
}

/** A stable integer in [0, n) for a seed (FNV-1a with a final mix: cheap, and spread enough). */
export function hashInt(seed: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) % n;
}

/** A stable element of a non-empty list. */
export function pick<T>(seed: string, items: readonly T[]): T {
  return items[hashInt(seed, items.length)]!;
}
