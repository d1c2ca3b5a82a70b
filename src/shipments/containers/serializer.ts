import { Type } from 'typebox';
import { iso, one, type Resource } from '../../jsonapi/resource.ts';
import { DateTime, Nullable, RelOne } from '../../jsonapi/schemas.ts';
import { schemaOf, serializerOf } from '../../members/kit.ts';
import { portByLocode } from '../../reference/data.ts';
import { TRANSPORT_EVENT } from './event-members.ts';
import { CONTAINER, type EventSummary } from './members.ts';
import type { ContainerRow, RawEventRow, TransportEventRow } from './queries.ts';

export { CONTAINER_STATUSES } from './members.ts';

const Str = Nullable(Type.String());
const Time = Nullable(DateTime);
const Tz = Nullable(Type.String({ description: 'IANA tz' }));

// The container and its transport events are declared member by member in members.ts and
// event-members.ts; their schemas and serializers are made from the declarations.

export const ContainerSchema = schemaOf(CONTAINER);

/**
 * `events`: the container's transport event ids (and its empty return's zone), loaded for the
 * whole page in one query. raw_events is links-only: listing their ids would mean reading every
 * raw event of every shipment on the page.
 */
export const serializeContainer: (c: ContainerRow, events: EventSummary | undefined) => Resource =
  serializerOf(CONTAINER);

export const TransportEventSchema = schemaOf(TRANSPORT_EVENT);
const transportEvent = serializerOf(TRANSPORT_EVENT);
export const serializeTransportEvent = (e: TransportEventRow): Resource => transportEvent(e, undefined);

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
    will_occur_at: Time,
    invalidated_at: Time,
    data_source: Type.String({ enum: ['shipping_line'] }),
    data_provider_name: Str,
    data_provider_code: Str,
    payload: Type.Unknown({ description: "The carrier's event as received." }),
  }),
  relationships: Type.Object({ location: RelOne, vessel: RelOne, container: RelOne, terminal: RelOne }),
});

export interface RawEventContext {
  /** Position of the first row in the whole list (page offset). */
  offset: number;
  /** The container's transport events, to name actual raw events the way we normalized them. */
  transportEvents: Array<
    Pick<TransportEventRow, 'event' | 'timestamp' | 'location_locode'> &
      Partial<Pick<TransportEventRow, 'terminal_id' | 'invalidated_at'>>
  >;
  vesselIdOf(imo: string | null, name: string | null): string | null;
  /** The container listed (raw events are read per container). */
  containerId?: string;
  /** The carrier entry that produced the events: the shipment's line. */
  provider?: { code: string; name: string | null } | null;
  /** The shipment's POL and POD: where a water move happens names it (engine/event-mapping.ts). */
  ports?: { pol: string | null; pod: string | null; destination: string | null };
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

/** The transport event the engine made of an actual raw event: same time, same place. */
function matchOf(r: RawEventRow, ctx: RawEventContext) {
  if (r.classifier !== 'ACT' || r.event_at === null) return undefined;
  const at = new Date(r.event_at).getTime();
  return ctx.transportEvents.find(
    (e) =>
      e.timestamp !== null &&
      new Date(e.timestamp).getTime() === at &&
      (e.location_locode ?? null) === (r.location_locode ?? null),
  );
}

// A water move's past tense in the document's names (`vessel_loaded`, `transshipment_arrived`).
const WATER_MOVES: Record<string, string> = {
  LOAD: 'loaded',
  DEPA: 'departed',
  ARRI: 'arrived',
  DISC: 'discharged',
};

/**
 * The product's name of the carrier's event: the name the engine gave the matching transport
 * event; else the code's own meaning (gates); else, for a water move (also planned and estimated
 * ones), its name at a port of that role (POL, POD, else transshipment).
 */
function normalizedName(
  r: RawEventRow,
  ctx: RawEventContext,
  match: ReturnType<typeof matchOf>,
): string | null {
  if (match) {
    const name = match.event.replace(/^container\.transport\./, '');
    if (RAW_NAMES.has(name)) return name;
  }
  if (r.classifier === 'ACT') {
    const fixed = UNAMBIGUOUS[`${r.event_type ?? ''} ${r.event_code ?? ''}`];
    if (fixed) return fixed;
  }
  const move = WATER_MOVES[(r.event_code ?? '').split(' ')[0]!];
  if (!ctx.ports || !r.location_locode || !move) return null;
  const at = r.location_locode;
  // The inland destination: arriving there is its own name; a move by land is no vessel's.
  if (at === ctx.ports.destination) return move === 'arrived' ? 'arrived_at_destination' : null;
  const mode = obj(
    obj(typeof r.payload === 'string' ? safeParse(r.payload) : r.payload)?.transportCall,
  )?.modeOfTransport;
  if (mode !== undefined && mode !== null && mode !== 'VESSEL') return null;
  // Loading and departing at the POL, arriving and discharging at the POD are the vessel's (the
  // other two are not names: null); every other port is a transshipment (engine/event-mapping.ts).
  const name =
    at === ctx.ports.pol
      ? ['loaded', 'departed'].includes(move) && `vessel_${move}`
      : at === ctx.ports.pod
        ? ['arrived', 'discharged'].includes(move) && `vessel_${move}`
        : `transshipment_${move}`;
  return name && RAW_NAMES.has(name) ? name : null;
}

/** The carrier's own label of the event when it gives one, else its codes. */
function originalEvent(r: RawEventRow): string | null {
  const o = obj(typeof r.payload === 'string' ? safeParse(r.payload) : r.payload);
  const label = text(o?.description) ?? text(o?.eventDescription);
  return label ?? ([r.event_type, r.event_code].filter(Boolean).join(' ') || null);
}

export function serializeRawEvent(r: RawEventRow, i: number, ctx: RawEventContext): Resource {
  const estimated = r.classifier === 'EST' || r.classifier === 'PLN';
  const timestamp = iso(r.event_at);
  const port = r.location_locode ? portByLocode(r.location_locode) : undefined;
  const match = matchOf(r, ctx);
  return {
    id: r.id,
    type: 'raw_event',
    attributes: {
      event: normalizedName(r, ctx, match),
      original_event: originalEvent(r),
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
      // The time a planned or estimated event is expected; an actual one has happened.
      will_occur_at: estimated ? timestamp : null,
      // When the engine found the transport event it made of this reading to be wrong.
      invalidated_at: iso(match?.invalidated_at ?? null),
      // Raw events are what a carrier entry answered (terminal data goes to transport events).
      data_source: 'shipping_line',
      data_provider_name: ctx.provider?.name ?? null,
      data_provider_code: ctx.provider?.code ?? null,
      payload: typeof r.payload === 'string' ? safeParse(r.payload) : r.payload,
    },
    relationships: {
      location: one('port', port?.id),
      vessel: one('vessel', ctx.vesselIdOf(r.vessel_imo, r.vessel_name)),
      container: one('container', ctx.containerId ?? null),
      terminal: one('terminal', match?.terminal_id ?? null),
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
