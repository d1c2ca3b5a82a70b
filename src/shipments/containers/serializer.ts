import { Type } from 'typebox';
import {
  API_PREFIX,
  iso,
  many,
  one,
  type Relationship,
  type Resource,
  selfLink,
} from '../../jsonapi/document.ts';
import {
  DateTime,
  Identifier as IdentifierSchema,
  Nullable,
  RelOne,
  resourceSchema,
} from '../../jsonapi/schemas.ts';
import { portByLocode, zoneOfLocode } from '../../reference/data.ts';
import type { ContainerRow, EventSummary, RawEventRow, TransportEventRow } from './queries.ts';
import { importDeadlines, jsonList, servedStatus } from './terminal-attributes.ts';

const Str = Nullable(Type.String());
const Time = Nullable(DateTime);
const Tz = Nullable(Type.String({ description: 'IANA tz' }));

/** A to-many relationship given as ids and/or a link to the related list. */
const RelManyLinked = Type.Object({
  data: Type.Optional(Type.Array(IdentifierSchema)),
  links: Type.Optional(Type.Object({ related: Type.String() })),
});

export const CONTAINER_STATUSES = [
  'new',
  'on_ship',
  'available',
  'not_available',
  'grounded',
  'on_rail',
  'picked_up',
  'off_dock',
  'delivered',
  'dropped',
  'loaded',
  'empty_returned',
  'awaiting_inland_transfer',
] as const;

// Stored values are identifiers; the published enum spells two of them with a space.
const EQUIPMENT_TYPE: Record<string, string> = { open_top: 'open top', flat_rack: 'flat rack' };

export const ContainerSchema = resourceSchema(
  'container',
  Type.Object({
    number: Type.String(),
    ref_numbers: Type.Array(Type.String()),
    equipment_type: Nullable(
      Type.String({ enum: ['dry', 'reefer', 'open top', 'flat rack', 'bulk', 'tank'] }),
    ),
    equipment_length: Nullable(Type.Integer()),
    equipment_height: Nullable(Type.String({ enum: ['standard', 'high_cube'] })),
    iso_equipment_code: Str,
    weight_in_lbs: Nullable(Type.Number()),
    seal_number: Str,
    created_at: DateTime,
    updated_at: DateTime,
    pickup_lfd: Time,
    pickup_appointment_at: Time,
    availability_known: Type.Boolean(),
    available_for_pickup: Nullable(Type.Boolean()),
    pod_arrived_at: Time,
    pod_discharged_at: Time,
    pod_full_out_at: Time,
    terminal_checked_at: Time,
    pod_full_out_chassis_number: Str,
    location_at_pod_terminal: Str,
    final_destination_full_out_at: Time,
    empty_out_at: Time,
    pol_full_in_at: Time,
    pol_vessel_loaded_at: Time,
    pol_vessel_departed_at: Time,
    delivered_at: Time,
    empty_terminated_at: Time,
    holds_at_pod_terminal: Type.Array(
      Type.Object({ name: Type.String(), status: Type.String(), description: Str }),
    ),
    fees_at_pod_terminal: Type.Array(
      Type.Object({ type: Type.String(), amount: Type.Number(), currency_code: Str }),
    ),
    pod_timezone: Tz,
    final_destination_timezone: Tz,
    empty_terminated_timezone: Tz,
    pod_rail_carrier_scac: Str,
    ind_rail_carrier_scac: Str,
    pod_last_tracking_request_at: Time,
    shipment_last_tracking_request_at: Time,
    pod_rail_loaded_at: Time,
    pod_rail_departed_at: Time,
    ind_eta_at: Time,
    ind_ata_at: Time,
    ind_rail_unloaded_at: Time,
    ind_facility_lfd_on: Time,
    import_deadlines: Type.Object({
      pickup_lfd_terminal: Time,
      pickup_lfd_rail: Time,
      pickup_lfd_line: Time,
    }),
    current_status: Type.String({ enum: [...CONTAINER_STATUSES] }),
  }),
  Type.Object({
    shipment: RelOne,
    pod_terminal: RelOne,
    pickup_facility: RelOne,
    transport_events: RelManyLinked,
    raw_events: RelManyLinked,
  }),
  'A container during one journey (one shipment).',
);

function weight(v: string | number | null): number | null {
  if (v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * `events`: the container's transport event ids (and its empty return's zone), loaded for the
 * whole page in one query. raw_events is links-only: listing their ids would mean reading every
 * raw event of every shipment on the page.
 */
export function serializeContainer(c: ContainerRow, events: EventSummary | undefined): Resource {
  const path = `/containers/${c.id}`;
  return {
    id: c.id,
    type: 'container',
    attributes: {
      number: c.number,
      ref_numbers: c.ref_numbers,
      equipment_type: c.equipment_type ? (EQUIPMENT_TYPE[c.equipment_type] ?? c.equipment_type) : null,
      equipment_length: c.equipment_length,
      equipment_height: c.equipment_height,
      iso_equipment_code: c.iso_equipment_code,
      weight_in_lbs: weight(c.weight_in_lbs),
      seal_number: c.seal_number,
      created_at: iso(c.created_at),
      updated_at: iso(c.updated_at),
      pickup_lfd: iso(c.pickup_lfd_line ?? c.pickup_lfd_terminal ?? c.pickup_lfd_rail),
      pickup_appointment_at: iso(c.pickup_appointment_at),
      availability_known: c.availability_known,
      available_for_pickup: c.availability_known ? c.available_for_pickup : null,
      pod_arrived_at: iso(c.pod_arrived_at),
      pod_discharged_at: iso(c.pod_discharged_at),
      pod_full_out_at: iso(c.pod_full_out_at),
      terminal_checked_at: iso(c.terminal_checked_at),
      pod_full_out_chassis_number: c.pod_full_out_chassis_number,
      location_at_pod_terminal: c.location_at_pod_terminal,
      final_destination_full_out_at: iso(c.final_destination_full_out_at),
      empty_out_at: iso(c.empty_out_at),
      pol_full_in_at: iso(c.pol_full_in_at),
      pol_vessel_loaded_at: iso(c.pol_vessel_loaded_at),
      pol_vessel_departed_at: iso(c.pol_vessel_departed_at),
      delivered_at: iso(c.delivered_at),
      empty_terminated_at: iso(c.empty_terminated_at),
      holds_at_pod_terminal: jsonList(c.holds_at_pod_terminal),
      fees_at_pod_terminal: jsonList(c.fees_at_pod_terminal),
      pod_timezone: zoneOfLocode(c.shipment_pod_locode),
      final_destination_timezone: zoneOfLocode(c.shipment_destination_locode),
      empty_terminated_timezone: c.empty_terminated_at ? (events?.empty_in_timezone ?? null) : null,
      pod_rail_carrier_scac: null,
      ind_rail_carrier_scac: null,
      pod_last_tracking_request_at: iso(c.shipment_last_attempted_at),
      shipment_last_tracking_request_at: iso(c.shipment_last_attempted_at),
      pod_rail_loaded_at: iso(c.pod_rail_loaded_at),
      pod_rail_departed_at: iso(c.pod_rail_departed_at),
      ind_eta_at: iso(c.ind_eta_at),
      ind_ata_at: iso(c.ind_ata_at),
      ind_rail_unloaded_at: iso(c.ind_rail_unloaded_at),
      ind_facility_lfd_on: null,
      import_deadlines: importDeadlines(c),
      current_status: servedStatus(c),
    },
    relationships: {
      shipment: one('shipment', c.shipment_id),
      pod_terminal: one('terminal', c.pod_terminal_id ?? c.shipment_pod_terminal_id),
      pickup_facility: { data: null },
      transport_events: {
        ...many('transport_event', events?.ids ?? []),
        links: { related: `${API_PREFIX}${path}/transport_events` },
      },
      raw_events: linksOnly(`${API_PREFIX}${path}/raw_events`),
    },
    links: selfLink(path),
  };
}

function linksOnly(related: string): Relationship {
  return { links: { related } } as unknown as Relationship;
}

// ---- transport events ------------------------------------------------------------------------

export const TransportEventSchema = resourceSchema(
  'transport_event',
  Type.Object({
    event: Type.String(),
    created_at: DateTime,
    voyage_number: Str,
    timestamp: Time,
    timezone: Tz,
    location_locode: Str,
    data_source: Type.String({ enum: ['shipping_line', 'terminal', 'ais'] }),
    /** Set when later data showed this reading was wrong: kept for the record, not counted. */
    invalidated_at: Time,
  }),
  Type.Object({
    shipment: RelOne,
    container: RelOne,
    location: RelOne,
    terminal: RelOne,
    vessel: RelOne,
  }),
  'One normalized milestone of a container.',
);

export function serializeTransportEvent(e: TransportEventRow): Resource {
  return {
    id: e.id,
    type: 'transport_event',
    attributes: {
      event: e.event,
      created_at: iso(e.created_at),
      voyage_number: e.voyage_number,
      timestamp: iso(e.timestamp),
      timezone: e.timezone,
      location_locode: e.location_locode,
      data_source: e.data_source,
      invalidated_at: iso(e.invalidated_at),
    },
    relationships: {
      shipment: one('shipment', e.shipment_id),
      container: one('container', e.container_id),
      location: one('port', e.location_locode ? portByLocode(e.location_locode)?.id : null),
      terminal: one('terminal', e.terminal_id),
      vessel: one('vessel', e.vessel_id),
    },
    links: selfLink(`/transport_events/${e.id}`),
  };
}

// ---- raw events ------------------------------------------------------------------------------

export const RAW_EVENT_NAMES = [
  'empty_out',
  'full_in',
  'positioned_in',
  'positioned_out',
  'vessel_loaded',
  'vessel_departed',
  'transshipment_arrived',
  'transshipment_discharged',
  'transshipment_loaded',
  'transshipment_departed',
  'feeder_arrived',
  'feeder_discharged',
  'feeder_loaded',
  'feeder_departed',
  'rail_loaded',
  'rail_departed',
  'rail_arrived',
  'rail_unloaded',
  'vessel_arrived',
  'vessel_discharged',
  'arrived_at_destination',
  'delivered',
  'full_out',
  'empty_in',
  'vgm_received',
  'carrier_release',
  'customs_release',
  'available',
] as const;
const RAW_NAMES = new Set<string>(RAW_EVENT_NAMES);

// Codes whose meaning does not depend on where in the journey they happen.
const UNAMBIGUOUS: Record<string, string> = {
  'EQUIPMENT GTOT EMPTY': 'empty_out',
  'EQUIPMENT GTIN LADEN': 'full_in',
  'EQUIPMENT GTOT LADEN': 'full_out',
  'EQUIPMENT GTIN EMPTY': 'empty_in',
  'EQUIPMENT DROP LADEN': 'delivered',
  'EQUIPMENT AVPU LADEN': 'available',
};

// Raw events have no URL of their own (they are listed per container), hence no links.self.
export const RawEventSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('raw_event'),
  attributes: Type.Object({
    event: Nullable(Type.String({ enum: [...RAW_EVENT_NAMES] })),
    original_event: Str,
    timestamp: Time,
    estimated: Type.Boolean(),
    actual_on: Nullable(Type.String()),
    estimated_on: Nullable(Type.String()),
    actual_at: Time,
    estimated_at: Time,
    timezone: Tz,
    created_at: DateTime,
    location_name: Str,
    location_locode: Str,
    vessel_name: Str,
    vessel_imo: Str,
    voyage_number: Str,
    index: Type.Integer(),
    payload: Type.Unknown({ description: "The carrier's event as received." }),
  }),
  relationships: Type.Object({ location: RelOne, vessel: RelOne }),
});

export interface RawEventContext {
  /** Position of the first row in the whole list (page offset). */
  offset: number;
  /** The container's transport events, to name actual raw events the way we normalized them. */
  transportEvents: Array<Pick<TransportEventRow, 'event' | 'timestamp' | 'location_locode'>>;
  vesselIdOf(imo: string | null, name: string | null): string | null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** The carrier's name of the event's place: eventLocation, else the transport call's location. */
function locationNameOf(payload: unknown): string | null {
  const o = obj(payload);
  const tc = obj(o?.transportCall);
  return (
    text(obj(o?.eventLocation)?.locationName) ??
    text(obj(tc?.location)?.locationName) ??
    text(tc?.locationName) ??
    null
  );
}

function normalizedName(r: RawEventRow, ctx: RawEventContext): string | null {
  if (r.classifier !== 'ACT' || r.event_at === null) return null;
  const at = new Date(r.event_at).getTime();
  const match = ctx.transportEvents.find(
    (e) =>
      e.timestamp !== null &&
      new Date(e.timestamp).getTime() === at &&
      (e.location_locode ?? null) === (r.location_locode ?? null),
  );
  if (match) {
    const name = match.event.replace(/^container\.transport\./, '');
    if (RAW_NAMES.has(name)) return name;
  }
  return UNAMBIGUOUS[`${r.event_type ?? ''} ${r.event_code ?? ''}`] ?? null;
}

export function serializeRawEvent(r: RawEventRow, i: number, ctx: RawEventContext): Resource {
  const estimated = r.classifier === 'EST' || r.classifier === 'PLN';
  const timestamp = iso(r.event_at);
  const original = [r.event_type, r.event_code].filter(Boolean).join(' ');
  const port = r.location_locode ? portByLocode(r.location_locode) : undefined;
  return {
    id: r.id,
    type: 'raw_event',
    attributes: {
      event: normalizedName(r, ctx),
      original_event: original || null,
      timestamp,
      estimated,
      actual_on: null,
      estimated_on: null,
      actual_at: estimated ? null : timestamp,
      estimated_at: estimated ? timestamp : null,
      timezone: port?.time_zone ?? null,
      created_at: iso(r.created_at),
      location_name: locationNameOf(r.payload) ?? port?.name ?? null,
      location_locode: r.location_locode,
      vessel_name: r.vessel_name,
      vessel_imo: r.vessel_imo,
      voyage_number: r.voyage_number,
      index: ctx.offset + i,
      payload: typeof r.payload === 'string' ? safeParse(r.payload) : r.payload,
    },
    relationships: {
      location: one('port', port?.id),
      vessel: one('vessel', ctx.vesselIdOf(r.vessel_imo, r.vessel_name)),
    },
  };
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}
