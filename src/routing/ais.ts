import type { LonLat } from './geo.ts';

// Where vessel positions come from. The service asks an AisProvider first and falls back to the
// schedule estimate (schedule.ts) when the provider knows nothing about a vessel, so a real AIS
// feed, the carrier simulator's AIS-like feed, or a file of recorded fixes can be plugged in
// without touching the map or the future-positions code. docs/routing.md documents the contract.

export interface VesselRef {
  id: string;
  imo: string | null;
  name: string;
}

export interface VesselFix {
  point: LonLat;
  at: Date;
  /** True heading in degrees [0, 360), if reported. */
  heading: number | null;
  /** Speed over ground in knots, if reported. */
  speedKnots: number | null;
}

export interface AisProvider {
  /** Provider name, for logs and metrics. */
  readonly name: string;
  /**
   * The vessel's latest fix at or before `at` and not older than `maxAgeMs`, or null when the
   * provider has none. Must answer from memory or a local store: it runs on the request path.
   */
  latest(vessel: VesselRef, at: Date, maxAgeMs: number): Promise<VesselFix | null>;
  /** The vessel's fixes between two times, oldest first (empty when none). */
  track(vessel: VesselRef, from: Date, to: Date): Promise<VesselFix[]>;
}

/** The default: no feed; every position is estimated from the carrier's schedule. */
export const noAis: AisProvider = {
  name: 'none',
  async latest() {
    return null;
  },
  async track() {
    return [];
  },
};

/**
 * A provider over fixes held in memory (tests, replays, and a base for feeds that push fixes in):
 * `record` adds a fix; reads return what was recorded.
 */
export function memoryAis(): AisProvider & { record(vessel: VesselRef, fix: VesselFix): void } {
  const fixes = new Map<string, VesselFix[]>();
  const keyOf = (v: VesselRef) => v.imo ?? v.id;
  return {
    name: 'memory',
    record(vessel, fix) {
      const list = fixes.get(keyOf(vessel)) ?? [];
      list.push(fix);
      list.sort((a, b) => a.at.getTime() - b.at.getTime());
      fixes.set(keyOf(vessel), list);
    },
    async latest(vessel, at, maxAgeMs) {
      const list = fixes.get(keyOf(vessel)) ?? [];
      for (let i = list.length - 1; i >= 0; i--) {
        const f = list[i]!;
        if (f.at <= at) return at.getTime() - f.at.getTime() <= maxAgeMs ? f : null;
      }
      return null;
    },
    async track(vessel, from, to) {
      return (fixes.get(keyOf(vessel)) ?? []).filter((f) => f.at >= from && f.at <= to);
    },
  };
}
