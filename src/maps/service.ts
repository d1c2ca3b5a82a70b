import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { badParameter, notFound } from '../errors.ts';
import { type Port, portById, portByLocode } from '../reference/data.ts';
import { findVessel, vesselsByIds } from '../reference/vessels.ts';
import type { AisProvider, VesselRef } from '../routing/ais.ts';
import type { LonLat } from '../routing/geo.ts';
import { buildJourney, type Journey } from '../routing/journey.ts';
import {
  buildMapGeoJson,
  type FeatureCollection,
  type LiveVessel,
  portPoint,
} from '../routing/map-geojson.ts';
import { portRoute } from '../routing/port-routes.ts';
import { DEFAULT_KNOTS, estimateAtSea, type LegTiming, legAtSea, legTimings } from '../routing/schedule.ts';
import { fromVertices, type SeaRoute, seaRoute } from '../routing/sea-route.ts';
import { positionsBetween, sliceNm, type TimedPosition } from '../routing/track.ts';
import { containerIdsForVessel, type JourneyRows, journeyRows } from './queries.ts';

// Maps, routes and vessel positions for one account: loads the journey facts, hands them to the
// routing domain (src/routing/) and asks the AIS provider for real fixes where it has them.

export interface RoutingDeps {
  db: Kysely<DB>;
  ais: AisProvider;
  now: () => Date;
}

/** A fix older than this is not "current": the schedule estimate is used instead. */
const FIX_MAX_AGE_MS = 6 * 3_600_000;
/** future_positions spacing: one minute, as the reference has it, stretched for long passages. */
export const POSITION_STEP_MS = 60_000;
export const MAX_POSITIONS = 2_000;
/** Shipments looked at to find a vessel's calls when no ports are given. */
const VESSEL_SHIPMENTS = 50;

export interface LoadedJourney {
  rows: JourneyRows;
  journey: Journey;
  timings: LegTiming[];
}

function routeOfLeg(leg: { from: { locode: string }; to: { locode: string } }): SeaRoute | null {
  const a = portByLocode(leg.from.locode);
  const b = portByLocode(leg.to.locode);
  return a && b ? portRoute(a, b) : null;
}

function toJourney(rows: JourneyRows): LoadedJourney {
  const journey = buildJourney(rows.shipment, rows.container, rows.events);
  return { rows, journey, timings: legTimings(journey, routeOfLeg) };
}

export async function loadJourney(
  db: Kysely<DB>,
  accountId: string,
  containerId: string,
): Promise<LoadedJourney> {
  const [rows] = await journeyRows(db, accountId, [containerId]);
  if (!rows) throw notFound('No container with this id.');
  return toJourney(rows);
}

export async function containerMap(
  deps: RoutingDeps,
  accountId: string,
  containerId: string,
): Promise<FeatureCollection> {
  const { journey, timings, rows } = await loadJourney(deps.db, accountId, containerId);
  const now = deps.now();
  const vessels = new Map<string, VesselRef>(
    (
      await vesselsByIds(
        deps.db,
        journey.legs.map((l) => l.vessel_id),
      )
    ).map((v) => [v.id, v]),
  );
  const atSea = legAtSea(timings, now);
  const vessel = atSea?.leg.vessel_id ? vessels.get(atSea.leg.vessel_id) : undefined;
  const live = atSea && vessel ? await liveVessel(deps, vessel, atSea, now) : null;
  return buildMapGeoJson({ journey, timings, now, updatedAt: rows.updated_at, vessels, live });
}

async function liveVessel(
  deps: RoutingDeps,
  vessel: VesselRef,
  t: LegTiming,
  now: Date,
): Promise<LiveVessel | null> {
  const fix = await deps.ais.latest(vessel, now, FIX_MAX_AGE_MS);
  if (!fix) return null;
  const track = t.departure ? await deps.ais.track(vessel, t.departure, now) : [];
  const next = portPoint(portByLocode(t.leg.to.locode));
  return { fix, track, remaining: next ? seaRoute(fix.point, next) : null };
}

export interface FuturePositionsQuery {
  portId?: string;
  previousPortId?: string;
  /** Start point of the coordinates variant ([lon, lat]). */
  from?: LonLat;
  /** True for future_positions_with_coordinates: start at `from` or the current estimate. */
  withCoordinates: boolean;
}

export interface VesselPositions {
  vessel: VesselRef;
  current: { point: LonLat; heading: number | null; speedKnots: number | null; at: Date } | null;
  positions: TimedPosition[];
  stepMs: number;
  distanceNm: number;
  previousPort: Port;
  port: Port;
}

function portParam(name: string, id: string | undefined): Port | undefined {
  if (id === undefined) return undefined;
  const port = portById(id.toLowerCase());
  if (!port) throw badParameter(name, `No port with id "${id}".`);
  return port;
}

/** The vessel's positions from now (or its departure) to the port, at the documented spacing. */
export async function vesselFuturePositions(
  deps: RoutingDeps,
  accountId: string,
  vesselId: string,
  q: FuturePositionsQuery,
): Promise<VesselPositions> {
  const vessel = await findVessel(deps.db, { id: vesselId });
  if (!vessel) throw notFound('No vessel with this id.');
  const now = deps.now();
  let port = portParam('port_id', q.portId);
  let previousPort = portParam('previous_port_id', q.previousPortId);
  if ((port === undefined) !== (previousPort === undefined))
    throw badParameter(
      port ? 'previous_port_id' : 'port_id',
      'Give both port_id and previous_port_id, or neither.',
    );

  // The vessel's legs in this account's shipments give the schedule (and the ports, when omitted).
  const ids = await containerIdsForVessel(deps.db, accountId, vessel.id, VESSEL_SHIPMENTS);
  const rank = new Map(ids.map((id, i) => [id, i]));
  const legs = (await journeyRows(deps.db, accountId, ids))
    .sort((a, b) => rank.get(a.container_id)! - rank.get(b.container_id)!) // most recently updated first
    .flatMap((r) => toJourney(r).timings)
    .filter((t) => t.leg.vessel_id === vessel.id && t.leg.mode === 'vessel' && t.route);
  let leg: LegTiming | undefined;
  if (port && previousPort) {
    const [from, to] = [previousPort.locode, port.locode];
    leg = legs.find((t) => t.leg.from.locode === from && t.leg.to.locode === to);
  } else {
    leg = pickLeg(legs, now);
    if (!leg)
      throw badParameter(
        'port_id',
        'No voyage of this vessel is known in your shipments: give port_id and previous_port_id.',
      );
    previousPort = portByLocode(leg.leg.from.locode)!;
    port = portByLocode(leg.leg.to.locode)!;
  }
  const destination = portPoint(port!);
  const origin = portPoint(previousPort!);
  if (!destination || !origin) throw badParameter('port_id', 'This port has no coordinates to route to.');

  const estimate =
    leg?.departureActual && !leg.arrivalActual && leg.departure && leg.departure <= now
      ? estimateAtSea(leg, now)
      : null;
  const fix = await deps.ais.latest(vessel, now, FIX_MAX_AGE_MS);
  let current: VesselPositions['current'] = fix
    ? { point: fix.point, heading: fix.heading, speedKnots: fix.speedKnots, at: fix.at }
    : estimate
      ? { point: estimate.point, heading: estimate.heading, speedKnots: estimate.speedKnots, at: now }
      : null;

  let route: SeaRoute;
  let start: Date;
  if (q.withCoordinates && (q.from || current)) {
    const from = q.from ?? current!.point;
    route = seaRoute(from, destination) ?? fromVertices([from, destination]);
    start = now;
    if (q.from) current = { point: q.from, heading: null, speedKnots: null, at: now };
  } else if (estimate && !fix) {
    route = fromVertices(sliceNm(leg!.route!, estimate.sailedNm, leg!.route!.distanceNm));
    start = now;
  } else if (fix) {
    route = seaRoute(fix.point, destination) ?? fromVertices([fix.point, destination]);
    start = now;
  } else {
    // Not under way (or no schedule known): the whole passage, from the departure (estimated or
    // actual) if known and still ahead, else from now.
    route = portRoute(previousPort!, port!) ?? fromVertices([origin, destination]);
    start = leg?.departure && leg.departure > now ? leg.departure : now;
  }
  const scheduled = estimate?.arrival ?? leg?.arrival ?? null;
  const arrival =
    scheduled && scheduled > start
      ? scheduled
      : new Date(start.getTime() + (route.distanceNm / DEFAULT_KNOTS) * 3_600_000);
  const positions = positionsBetween(
    route,
    { departedAt: start, arrivesAt: arrival },
    start,
    POSITION_STEP_MS,
    MAX_POSITIONS,
  );
  const stepMs =
    positions.length > 1 ? positions[1]!.at.getTime() - positions[0]!.at.getTime() : POSITION_STEP_MS;
  return {
    vessel,
    current,
    positions,
    stepMs,
    distanceNm: route.distanceNm,
    previousPort: previousPort!,
    port: port!,
  };
}

/** Without ports: the leg under way (latest departure), else the next one to sail. */
function pickLeg(legs: LegTiming[], now: Date): LegTiming | undefined {
  const underWay = legs
    .filter((t) => t.departureActual && !t.arrivalActual && t.departure && t.departure <= now)
    .sort((a, b) => b.departure!.getTime() - a.departure!.getTime());
  if (underWay[0]) return underWay[0];
  return legs
    .filter((t) => !t.departureActual && t.departure)
    .sort((a, b) => a.departure!.getTime() - b.departure!.getTime())[0];
}
