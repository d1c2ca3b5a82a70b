// Where carrier events sit on a container's route: which leg endpoint a vessel call belongs to,
// and the inland destination after the port of discharge (CARRIER-NOTES §5.5). Pure.

import { cmp, type Ev, newer } from './prepare.ts';
import { type Leg, type Route, sameVessel } from './roles.ts';

export function callsMatch(t: Ev, m: Ev): boolean {
  const a = t.tc;
  const b = m.tc;
  if (a?.transportCallId && a.transportCallId === b?.transportCallId) return true;
  if (!t.locode || t.locode !== m.locode) return false;
  if ((t.mode === 'barge') !== (m.mode === 'barge')) return false;
  const va = { vesselImo: a?.vesselImo ?? null, vesselName: a?.vesselName?.toUpperCase() ?? null };
  const vb = { vesselImo: b?.vesselImo ?? null, vesselName: b?.vesselName?.toUpperCase() ?? null };
  if (!sameVessel(va, vb)) return false;
  const voyA = [a?.exportVoyage, a?.importVoyage].filter((v): v is string => !!v);
  const voyB = [b?.exportVoyage, b?.importVoyage].filter((v): v is string => !!v);
  if (voyA.length > 0 && voyB.length > 0 && !voyA.some((v) => voyB.includes(v))) return false;
  return !(a?.sequence != null && b?.sequence != null && a.sequence !== b.sequence);
}

/** The leg endpoint a vessel departure or arrival belongs to, if any (else: an intermediate call). */
export function attach(t: Ev, all: Ev[], route: Route): { leg: Leg; end: 'load' | 'disc' } | null {
  const end = t.p.code === 'DEPA' ? 'load' : t.p.code === 'ARRI' ? 'disc' : null;
  if (!end) return null;
  for (const leg of route.legs) {
    const m = leg[end];
    if (!m) continue;
    const me = all[m.idx]!;
    if (me === t || callsMatch(t, me)) return { leg, end };
  }
  return null;
}

export function byTime(a: Ev, b: Ev): number {
  const ta = a.time?.ms ?? Number.POSITIVE_INFINITY;
  const tb = b.time?.ms ?? Number.POSITIVE_INFINITY;
  return ta !== tb ? (ta < tb ? -1 : 1) : cmp(a.semKey, b.semKey);
}

/**
 * The place of the last on-carriage arrival after the POD, actual or planned: non-vessel
 * arrivals, rail/truck discharges, laden gate-ins at inland terminals and ramps, and the end of
 * a feeder leg after the last mainline leg. Null when there is none or it is the POD itself.
 */
export function inlandDestination(
  all: Ev[],
  own: Ev[],
  transport: Ev[],
  route: Route,
  pod: string | null,
  importish: (e: Ev) => boolean,
): string | null {
  const pool: Ev[] = [];
  for (const t of transport) {
    if (t.p.code === 'ARRI' && t.mode !== null && t.mode !== 'vessel') pool.push(t);
  }
  for (const e of own) {
    const p = e.p;
    if (p.kind !== 'equipment' || p.fill === 'empty') continue;
    if (p.code === 'DISC' && (e.mode === 'rail' || e.mode === 'truck')) pool.push(e);
    if (p.code === 'GTIN' && (e.facilityTypeCode === 'INTE' || e.facilityTypeCode === 'RAMP')) pool.push(e);
  }
  const lastMain = route.main[route.main.length - 1];
  const trailing = lastMain ? route.legs.slice(route.legs.indexOf(lastMain) + 1) : [];
  for (const leg of trailing) if (leg.disc) pool.push(all[leg.disc.idx]!);
  let bestEv: Ev | null = null;
  for (const e of pool) {
    if (!e.locode || e.locode === pod || !e.time || !importish(e)) continue;
    if (
      !bestEv ||
      e.time.ms > bestEv.time!.ms ||
      (e.time.ms === bestEv.time!.ms &&
        (e.p.certainty === 'actual') !== (bestEv.p.certainty === 'actual') &&
        e.p.certainty === 'actual') ||
      (e.time.ms === bestEv.time!.ms && e.p.certainty === bestEv.p.certainty && newer(e, bestEv))
    ) {
      bestEv = e;
    }
  }
  return bestEv?.locode ?? null;
}
