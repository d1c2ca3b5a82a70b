import type { Journey, Leg } from './journey.ts';
import type { SeaRoute } from './sea-route.ts';
import { fractionAt, impliedKnots, pointAtNm, type RoutePoint } from './track.ts';

// When each leg starts and ends: actual times where the carrier reported them, its estimates
// otherwise, and where a call has neither (transshipment ports rarely carry an ETA) a time
// derived from distance: the time to the next call that has one is shared out in proportion to
// the sea distance of each leg, or, with no later time at all, the distance at DEFAULT_KNOTS.

/** Service speed assumed when no schedule says otherwise (a typical container ship, 16 kn). */
export const DEFAULT_KNOTS = 16;
const HOUR = 3_600_000;

export interface LegTiming {
  leg: Leg;
  route: SeaRoute | null;
  departure: Date | null;
  departureActual: boolean;
  arrival: Date | null;
  arrivalActual: boolean;
}

export function legTimings(journey: Journey, routeOf: (leg: Leg) => SeaRoute | null): LegTiming[] {
  // Only water legs have a sea route; a leg of unknown mode (an inland leg nothing has said
  // anything about yet) is not drawn across the sea.
  const routes = journey.legs.map((l) => (l.mode === 'vessel' ? routeOf(l) : null));
  const out: LegTiming[] = [];
  let previousArrival: Date | null = null;
  journey.legs.forEach((leg, i) => {
    const route = routes[i]!;
    const departureActual = leg.from.outbound.actual !== null;
    const departure = leg.from.outbound.actual ?? leg.from.outbound.estimated ?? previousArrival;
    const arrivalActual = leg.to.inbound.actual !== null;
    let arrival = leg.to.inbound.actual ?? leg.to.inbound.estimated;
    if (!arrival && departure && route) arrival = deriveArrival(journey, routes, i, departure);
    out.push({ leg, route, departure, departureActual, arrival, arrivalActual });
    previousArrival = arrival;
  });
  return out;
}

function deriveArrival(journey: Journey, routes: Array<SeaRoute | null>, i: number, departure: Date): Date {
  let sailed = 0;
  for (let k = i; k < journey.legs.length; k++) {
    const r = routes[k];
    if (!r) break;
    sailed += r.distanceNm;
    const to = journey.legs[k]!.to.inbound;
    const anchor = to.actual ?? to.estimated;
    if (anchor && anchor > departure && sailed > 0) {
      const share = routes[i]!.distanceNm / sailed;
      return new Date(departure.getTime() + (anchor.getTime() - departure.getTime()) * share);
    }
  }
  return new Date(departure.getTime() + (routes[i]!.distanceNm / DEFAULT_KNOTS) * HOUR);
}

/** The leg a vessel carrying this container is sailing at `now`: departed, not yet arrived. */
export function legAtSea(timings: readonly LegTiming[], now: Date): LegTiming | null {
  for (let i = timings.length - 1; i >= 0; i--) {
    const t = timings[i]!;
    if (t.leg.mode !== 'vessel' || !t.route) continue;
    if (t.departureActual && !t.arrivalActual && t.departure && t.departure <= now) return t;
    if (t.departureActual) return null;
  }
  return null;
}

export interface Estimate extends RoutePoint {
  at: Date;
  /** Distance sailed from the departure port, nm. */
  sailedNm: number;
  speedKnots: number | null;
  /** When the vessel is expected at the next port (now + the schedule's remaining time, or at default speed when overdue). */
  arrival: Date;
}

/**
 * Where the vessel is at `now` on a leg at sea, at the schedule's constant speed. A vessel past
 * its estimated arrival that has not reported arriving is held short of the port (95% of the
 * route) at DEFAULT_KNOTS, rather than drawn in the port it has not reached.
 */
export function estimateAtSea(t: LegTiming, now: Date): Estimate | null {
  if (!t.route || !t.departure) return null;
  const route = t.route;
  const arrival = t.arrival && t.arrival > now ? t.arrival : null;
  if (arrival) {
    const passage = { departedAt: t.departure, arrivesAt: arrival };
    const sailed = fractionAt(passage, now) * route.distanceNm;
    return {
      ...pointAtNm(route, sailed),
      at: now,
      sailedNm: sailed,
      speedKnots: impliedKnots(route, passage),
      arrival,
    };
  }
  const byDefault = ((now.getTime() - t.departure.getTime()) / HOUR) * DEFAULT_KNOTS;
  const sailed = Math.min(byDefault, route.distanceNm * 0.95);
  const left = ((route.distanceNm - sailed) / DEFAULT_KNOTS) * HOUR;
  return {
    ...pointAtNm(route, sailed),
    at: now,
    sailedNm: sailed,
    speedKnots: DEFAULT_KNOTS,
    arrival: new Date(now.getTime() + left),
  };
}
