// Port-role derivation (CARRIER-NOTES §5): water legs from LOAD -> DISC moves, then POL, POD,
// transshipment ports and feeder legs. Pure; works on a small abstraction (Move) so that the
// same code serves equipment moves and, when a booking has no equipment moves yet, the
// booking's vessel departures and arrivals.
//
// Rules where the notes leave room (documented here because they are choices):
// - Re-plans: 2.2 has no retraction, so stale plans linger. Per (kind, port), an actual move
//   supersedes every planned one, and among planned moves only the newest-created survives.
//   While walking the chain, a leg's discharge is the earliest actual discharge on the same
//   vessel, else the newest-created planned one.
// - A discharge and a reload on the same vessel at the same port (restow, or a call the box stays
//   on board for, when legs come from vessel calls) continue the leg: not a transshipment.
// - Feeders: BARGE legs always; VESSEL legs before the first or after the last "mother" leg when
//   they are short-sea, i.e. the transit takes at most `feederMaxTransitHours` (default 48 h).
//   If every vessel leg is short, all vessel legs are mainline. A barge-only route is treated
//   as mainline so that POL and POD still exist.

export type MoveKind = 'LOAD' | 'DISC';

export interface Move {
  /** Caller's handle for the underlying event. */
  idx: number;
  kind: MoveKind;
  mode: 'vessel' | 'barge';
  actual: boolean;
  timeMs: number | null;
  createdMs: number;
  locode: string | null;
  vesselImo: string | null;
  vesselName: string | null;
  /** Deterministic tie-breaker (the event's semantic key). */
  tiebreak: string;
}

export interface Leg {
  load: Move | null;
  disc: Move | null;
  mode: 'vessel' | 'barge';
  role: 'main' | 'feeder';
}

export interface Route {
  legs: Leg[];
  main: Leg[];
  polLocode: string | null;
  podLocode: string | null;
  transshipmentLocodes: string[];
}

export interface RoleOptions {
  feederMaxTransitHours?: number;
}

const MAX_LEGS = 20;

export function sameVessel(
  a: { vesselImo: string | null; vesselName: string | null },
  b: { vesselImo: string | null; vesselName: string | null },
): boolean {
  if (a.vesselImo && b.vesselImo) return a.vesselImo === b.vesselImo;
  if (a.vesselName && b.vesselName) return a.vesselName === b.vesselName;
  return true; // unknown on one side: do not let missing data split a leg
}

function vesselKnownEqual(a: Move, b: Move): boolean {
  if (a.vesselImo && b.vesselImo) return a.vesselImo === b.vesselImo;
  if (a.vesselName && b.vesselName) return a.vesselName === b.vesselName;
  return false;
}

const notBefore = (a: Move, b: Move | null): boolean =>
  b === null || a.timeMs === null || b.timeMs === null || a.timeMs >= b.timeMs;

/** Order for "earliest": time (unknown last), then tiebreak. */
function earlier(a: Move, b: Move): number {
  const ta = a.timeMs ?? Number.POSITIVE_INFINITY;
  const tb = b.timeMs ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.tiebreak < b.tiebreak ? -1 : a.tiebreak > b.tiebreak ? 1 : 0;
}

/** Best candidate: the earliest actual; failing that, the newest-created plan (then earliest). */
function best(candidates: Move[]): Move | null {
  const actual = candidates.filter((m) => m.actual).sort(earlier);
  if (actual.length > 0) return actual[0]!;
  const planned = [...candidates].sort((a, b) =>
    a.createdMs !== b.createdMs ? (a.createdMs > b.createdMs ? -1 : 1) : earlier(a, b),
  );
  return planned[0] ?? null;
}

/** Drops planned moves superseded by an actual or a newer plan at the same (kind, port). */
function supersede(moves: Move[]): Move[] {
  const groups = new Map<string, Move[]>();
  for (const m of moves) {
    const k = `${m.kind}|${m.mode}|${m.locode ?? `?${m.idx}`}`;
    const g = groups.get(k);
    if (g) g.push(m);
    else groups.set(k, [m]);
  }
  const out: Move[] = [];
  for (const g of groups.values()) {
    const actual = g.filter((m) => m.actual);
    if (actual.length > 0) out.push(...actual);
    else out.push(best(g)!);
  }
  return out.sort(earlier);
}

/** Builds the chain of water legs from a container's moves (any classifier). */
export function buildLegs(input: readonly Move[]): Leg[] {
  const moves = supersede([...input]);
  const used = new Set<Move>();
  const loads = moves.filter((m) => m.kind === 'LOAD');
  const discs = moves.filter((m) => m.kind === 'DISC');
  const legs: Leg[] = [];

  const pickDisc = (load: Move): Move | null =>
    best(
      discs.filter((d) => !used.has(d) && d.mode === load.mode && sameVessel(d, load) && notBefore(d, load)),
    );

  const pickNextLoad = (disc: Move): Move | null => {
    const open = loads.filter((l) => !used.has(l) && notBefore(l, disc));
    const here = open.filter((l) => l.locode === null || disc.locode === null || l.locode === disc.locode);
    if (here.length > 0) return best(here);
    // A move between ports (e.g. trucked from one port to another) is a gap in the chain; only
    // bridge it with moves at least as fresh as the discharge, so stale plans cannot extend it.
    return best(open.filter((l) => l.actual || l.createdMs >= disc.createdMs));
  };

  // The journey starts at its earliest load, actual or planned: an actual load later in the
  // journey (a transshipment departure seen before the box's own moves) is not where it began.
  const firstActual = best(loads.filter((l) => l.actual));
  const firstPlanned = earliestPlanned(loads.filter((l) => !l.actual));
  let load: Move | null =
    firstActual &&
    firstPlanned &&
    earlier(firstPlanned, firstActual) < 0 &&
    !beforeAnActualDisc(firstPlanned, discs)
      ? firstPlanned
      : (firstActual ?? firstPlanned);
  let disc: Move | null = null;
  if (load === null) {
    // No load at all (a carrier that only reports the import side): start from a discharge.
    disc = best(discs.filter((d) => d.actual)) ?? earliestPlanned(discs);
    if (disc === null) return [];
    used.add(disc);
    legs.push({ load: null, disc, mode: disc.mode, role: 'main' });
    load = pickNextLoad(disc);
  }
  // Bounded walk: each step consumes at least one move, and garbage input cannot make it long.
  let steps = 0;
  while (load !== null && legs.length < MAX_LEGS && steps < 2 * MAX_LEGS) {
    used.add(load);
    const leg: Leg = { load, disc: null, mode: load.mode, role: 'main' };
    legs.push(leg);
    while (steps++ < 2 * MAX_LEGS) {
      disc = pickDisc(load);
      if (disc === null) break;
      used.add(disc);
      leg.disc = disc;
      const next = pickNextLoad(disc);
      // Reloaded onto the same vessel at the same port: the box never left it, one leg.
      if (next && next.mode === leg.mode && next.locode === disc.locode && vesselKnownEqual(next, disc)) {
        used.add(next);
        load = next;
        continue;
      }
      break;
    }
    if (leg.disc === null) break;
    load = pickNextLoad(leg.disc);
  }
  return legs;
}

/** A planned load that an actual discharge already happened after is a stale plan, not the start. */
function beforeAnActualDisc(load: Move, discs: Move[]): boolean {
  return discs.some((d) => d.actual && d.timeMs !== null && load.timeMs !== null && d.timeMs < load.timeMs);
}

function earliestPlanned(moves: Move[]): Move | null {
  return [...moves].sort(earlier)[0] ?? null;
}

const cloneLeg = (l: Leg): Leg => ({ ...l });

/**
 * A container's own legs (its LOAD/DISC moves) completed by the journey the booking's vessel
 * calls describe (PLN/EST/ACT DEPA/ARRI): the plan is what says where the journey starts and
 * ends, so a discharge at a port the plan sails on from is a transshipment, never the POD
 * (CARRIER-NOTES §5.3, "anchor on the POD"). The own legs are kept as they are; the plan only
 * contributes the legs before the first and after the last one the box is known to have ridden
 * (and those legs' missing ends). Matching is by port and vessel; a plan that does not contain
 * the box's legs adds nothing (the box's own moves win). Pure; new Leg objects.
 */
export function completeLegs(own: readonly Leg[], plan: readonly Leg[]): Leg[] {
  const out = own.map(cloneLeg);
  if (out.length === 0) return plan.map(cloneLeg);
  if (plan.length === 0) return out;
  const first = out[0]!;
  const last = out[out.length - 1]!;
  const jFirst = matchIn(plan, first);
  const jLast = matchIn(plan, last);
  if (jLast >= 0) {
    last.disc ??= plan[jLast]!.disc;
    for (const p of plan.slice(jLast + 1)) if (out.length < MAX_LEGS) out.push(cloneLeg(p));
  }
  if (jFirst >= 0 && (jLast < 0 || jFirst <= jLast)) {
    first.load ??= plan[jFirst]!.load;
    const before = plan.slice(0, jFirst).map(cloneLeg);
    out.unshift(...before.slice(Math.max(0, before.length + out.length - MAX_LEGS)));
  }
  return out;
}

/** Index of the plan leg that is `leg` (same mode, and its load or discharge port and vessel). */
function matchIn(plan: readonly Leg[], leg: Leg): number {
  const same = (a: Move | null, b: Move | null) => !!a && !!b && a.locode === b.locode && sameVessel(a, b);
  const byLoad = leg.load ? plan.findIndex((p) => p.mode === leg.mode && same(p.load, leg.load)) : -1;
  if (byLoad >= 0) return byLoad;
  return leg.disc ? plan.findIndex((p) => p.mode === leg.mode && same(p.disc, leg.disc)) : -1;
}

export function transitHours(leg: Leg): number | null {
  const a = leg.load?.timeMs;
  const b = leg.disc?.timeMs;
  return a == null || b == null ? null : (b - a) / 3_600_000;
}

/** Marks feeder legs and derives POL, POD and transshipment ports. */
export function assignRoles(legs: Leg[], options?: RoleOptions): Route {
  const maxHours = options?.feederMaxTransitHours ?? 48;
  const short = (leg: Leg): boolean => {
    const h = transitHours(leg);
    return h !== null && h <= maxHours;
  };
  const vesselIdx = legs.flatMap((l, i) => (l.mode === 'vessel' ? [i] : []));
  const mother = vesselIdx.filter((i) => !short(legs[i]!));
  let isMain: (leg: Leg, i: number) => boolean;
  if (mother.length > 0) {
    const lo = mother[0]!;
    const hi = mother[mother.length - 1]!;
    isMain = (l, i) => l.mode === 'vessel' && i >= lo && i <= hi;
  } else if (vesselIdx.length > 0) {
    isMain = (l) => l.mode === 'vessel';
  } else {
    isMain = () => true;
  }
  legs.forEach((l, i) => {
    l.role = isMain(l, i) ? 'main' : 'feeder';
  });
  const main = legs.filter((l) => l.role === 'main');
  const first = main[0];
  const last = main[main.length - 1];
  const pol = first?.load?.locode ?? null;
  const pod = last?.disc?.locode ?? null;
  const ts: string[] = [];
  for (let i = 0; i + 1 < main.length; i++) {
    for (const c of [main[i]!.disc?.locode, main[i + 1]!.load?.locode]) {
      if (c && c !== pol && c !== pod && !ts.includes(c)) ts.push(c);
    }
  }
  return { legs, main, polLocode: pol, podLocode: pod, transshipmentLocodes: ts };
}

/** Role of the port at one end of a leg. */
export function endpointRole(
  route: Route,
  leg: Leg,
  end: 'load' | 'disc',
): 'pol' | 'transshipment' | 'pod' | 'feeder' {
  if (leg.role === 'feeder') return 'feeder';
  if (end === 'load') return route.main[0] === leg ? 'pol' : 'transshipment';
  return route.main[route.main.length - 1] === leg ? 'pod' : 'transshipment';
}
