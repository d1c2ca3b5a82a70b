import { type Port, portByLocode } from '../reference/data.ts';
import type { VesselFix, VesselRef } from './ais.ts';
import { type LonLat, round6 } from './geo.ts';
import type { Journey, PortCall } from './journey.ts';
import { estimateAtSea, type LegTiming } from './schedule.ts';
import type { SeaRoute } from './sea-route.ts';
import { sliceNm } from './track.ts';

// A container's map as a GeoJSON FeatureCollection with the reference's feature properties
// (portFeatureProperties, currentVesselFeatureProperties, pastVesselLocationsFeatureProperties,
// estimatedFullLegFeatureProperties, estimatedPartialLegFeatureProperties). Per call, in
// journey order: the port, then the features of the leg leaving it: where the vessel went
// (past_vessel_locations), where it is (current_vessel) and where it will go
// (estimated_partial_leg) for a leg under way, or the whole lane (estimated_full_legs) for a leg
// not yet sailed. Rail legs (and inland legs of unknown mode) have no sea geometry and draw
// nothing between their ports.

export interface Feature {
  type: 'Feature';
  geometry: { type: 'Point'; coordinates: LonLat } | { type: 'LineString'; coordinates: LonLat[] };
  properties: { feature_type: string; [key: string]: unknown };
}

export interface FeatureCollection {
  type: 'FeatureCollection';
  features: Feature[];
}

/** A live position for the leg at sea, from an AIS provider (ais.ts). */
export interface LiveVessel {
  fix: VesselFix;
  /** Fixes since departure, oldest first (may be empty). */
  track: VesselFix[];
  /** Sea route from the fix to the next port. */
  remaining: SeaRoute | null;
}

export interface MapInput {
  journey: Journey;
  timings: LegTiming[];
  now: Date;
  updatedAt: Date | null;
  vessels: ReadonlyMap<string, VesselRef>;
  live?: LiveVessel | null;
}

const iso = (d: Date | null | undefined): string | null =>
  d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : null;
const countries = new Intl.DisplayNames(['en'], { type: 'region' });

export function countryName(code: string): string {
  try {
    return countries.of(code) ?? code;
  } catch {
    return code;
  }
}

export function portPoint(port: Port | undefined): LonLat | null {
  return port && port.latitude !== null && port.longitude !== null
    ? round6([port.longitude, port.latitude])
    : null;
}

function portProperties(
  call: PortCall,
  port: Port,
  total: number,
  updatedAt: Date | null,
): Record<string, unknown> {
  return {
    feature_type: 'port',
    ports_sequence: call.sequence,
    ports_total: total,
    location_id: port.id,
    location_type: 'Port',
    name: port.name,
    state_abbr: port.state_abbr,
    state: null,
    country_code: port.country_code,
    country: countryName(port.country_code),
    time_zone: port.time_zone ?? 'UTC',
    inbound_eta_at: iso(call.inbound.estimated),
    inbound_ata_at: iso(call.inbound.actual),
    outbound_etd_at: iso(call.outbound.estimated),
    outbound_atd_at: iso(call.outbound.actual),
    label: call.label,
    updated_at: iso(updatedAt),
  };
}

// Properties the reference schemas allow to be null. Any other property that is unknown is left
// out rather than sent as null (the schemas type them as plain strings).
const NULLABLE = new Set([
  'state_abbr',
  'state',
  'inbound_eta_at',
  'inbound_ata_at',
  'outbound_etd_at',
  'outbound_atd_at',
  'updated_at',
  'voyage_number',
  'vessel_location_heading',
  'vessel_location_speed',
  'departure_port_state_abbr',
  'departure_port_state',
  'departure_port_atd',
  'arrival_port_id',
  'arrival_port_name',
  'arrival_port_state_abbr',
  'arrival_port_state',
  'arrival_port_country_code',
  'arrival_port_country',
  'arrival_port_label',
  'arrival_port_eta',
  'arrival_port_time_zone',
]);

function compact(properties: Record<string, unknown>): Feature['properties'] {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(properties)) if (v !== null || NULLABLE.has(k)) out[k] = v;
  return out as Feature['properties'];
}

const point = (coordinates: LonLat, properties: Record<string, unknown>): Feature => ({
  type: 'Feature',
  geometry: { type: 'Point', coordinates },
  properties: compact(properties),
});

const line = (coordinates: LonLat[], properties: Record<string, unknown>): Feature => ({
  type: 'Feature',
  geometry: { type: 'LineString', coordinates },
  properties: compact({ ...properties, point_count: coordinates.length }),
});

export function buildMapGeoJson(input: MapInput): FeatureCollection {
  const { journey, timings, now } = input;
  const features: Feature[] = [];
  const total = journey.calls.length;
  journey.calls.forEach((call, i) => {
    const port = portByLocode(call.locode);
    const at = portPoint(port);
    if (port && at) {
      features.push(point(at, portProperties(call, port, total, input.updatedAt)));
    }
    const t = timings[i];
    if (!t?.route || t.leg.mode !== 'vessel') return;
    const { leg, route } = t;
    const next = portByLocode(leg.to.locode);
    if (!t.departureActual) {
      features.push(
        line(route.coordinates, {
          feature_type: 'estimated_full_legs',
          ports_sequence: call.sequence,
          previous_port_id: port?.id ?? null,
          next_port_id: next?.id ?? null,
        }),
      );
      return;
    }
    const vesselId = leg.vessel_id;
    const pastBase = {
      feature_type: 'past_vessel_locations',
      ports_sequence: call.sequence,
      vessel_id: vesselId,
      start_time: iso(t.departure),
      outbound_atd_at: iso(leg.from.outbound.actual),
      inbound_ata_at: iso(leg.to.inbound.actual),
      inbound_eta_at: iso(leg.to.inbound.estimated),
    };
    if (t.arrivalActual || !t.departure || t.departure > now) {
      features.push(line(route.coordinates, { ...pastBase, end_time: iso(t.arrival) }));
      return;
    }
    const estimate = estimateAtSea(t, now);
    if (!estimate) return;
    const live = input.live;
    const here: LonLat = live ? live.fix.point : estimate.point;
    const past =
      live && live.track.length >= 2
        ? live.track.map((f) => round6(f.point))
        : [...sliceNm(route, 0, estimate.sailedNm).slice(0, -1), here];
    features.push(line(past, { ...pastBase, end_time: iso(live ? live.fix.at : now) }));
    const vessel = vesselId ? input.vessels.get(vesselId) : undefined;
    features.push(
      point(here, {
        feature_type: 'current_vessel',
        ports_sequence: call.sequence,
        vessel_id: vesselId,
        vessel_name: vessel?.name ?? null,
        vessel_imo: vessel?.imo ?? null,
        voyage_number: leg.voyage_number,
        vessel_location_timestamp: iso(live ? live.fix.at : now),
        vessel_location_heading: live ? live.fix.heading : estimate.heading,
        vessel_location_speed: live ? live.fix.speedKnots : estimate.speedKnots,
        ...endpoint('departure', leg.from, port),
        departure_port_atd: iso(leg.from.outbound.actual),
        ...endpoint('arrival', leg.to, next),
        arrival_port_eta: iso(leg.to.inbound.estimated ?? t.arrival),
      }),
    );
    const ahead = live?.remaining
      ? live.remaining.coordinates
      : [here, ...sliceNm(route, estimate.sailedNm, route.distanceNm).slice(1)];
    features.push(
      line(ahead.length >= 2 ? ahead : [here, here], {
        feature_type: 'estimated_partial_leg',
        ports_sequence: call.sequence,
        current_port_id: port?.id ?? null,
        next_port_id: next?.id ?? null,
      }),
    );
  });
  return { type: 'FeatureCollection', features };
}

function endpoint(
  prefix: 'departure' | 'arrival',
  call: PortCall,
  port: Port | undefined,
): Record<string, unknown> {
  return {
    [`${prefix}_port_id`]: port?.id ?? null,
    [`${prefix}_port_name`]: port?.name ?? null,
    [`${prefix}_port_state_abbr`]: port?.state_abbr ?? null,
    [`${prefix}_port_state`]: null,
    [`${prefix}_port_country_code`]: port?.country_code ?? null,
    [`${prefix}_port_country`]: port ? countryName(port.country_code) : null,
    [`${prefix}_port_label`]: call.label,
    [`${prefix}_port_time_zone`]: port?.time_zone ?? null,
  };
}
