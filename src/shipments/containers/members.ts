import type { Selectable } from 'kysely';
import { Type } from 'typebox';
import type { ContainersTable } from '../../db/schema.ts';
import { API_PREFIX, iso, many, one } from '../../jsonapi/resource.ts';
import { DateTime, Identifier, Nullable, RelOne } from '../../jsonapi/schemas.ts';
import { ident, lit, obj, raw, time, val } from '../../members/json-text.ts';
import { alwaysNull, columns, computed, declare, noRelation, reference } from '../../members/kit.ts';
import { referenceOf } from '../../reference/markers.ts';
import { importDeadlines, jsonList, servedStatus } from './terminal-attributes.ts';

// The container resource, member for member (src/members/kit.ts says what a member declares and
// what is made of it). In SQL `c` is the container row and `s` its shipment.

/** The container row and what its shipment and terminal check add (joined in queries.ts). */
export type ContainerSource = Omit<Selectable<ContainersTable>, 'weight_in_lbs'> & {
  /** numeric: PostgreSQL answers a string, PGlite may answer a number. */
  weight_in_lbs: string | number | null;
  shipment_pod_locode: string | null;
  shipment_destination_locode: string | null;
  shipment_pod_terminal_id: string | null;
  shipment_last_attempted_at: Date | null;
  /** When the POD terminal was last asked (container_terminal_checks). */
  terminal_checked_at: Date | null;
};

/** The container's transport event ids (and its empty return's zone), loaded per page. */
export interface EventSummary {
  ids: string[];
  empty_in_timezone: string | null;
}
type Ctx = EventSummary | undefined;

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

/** Why a container's tracking stopped: only a user's request stops one container alone. */
export const CONTAINER_STOP_REASONS = ['user_request'] as const;

const c = columns<ContainerSource, Ctx>();
const Str = Nullable(Type.String());
const Time = Nullable(DateTime);
const Tz = Nullable(Type.String({ description: 'IANA tz' }));
const HoldList = Type.Array(Type.Object({ name: Type.String(), status: Type.String(), description: Str }));
const FeeList = Type.Array(Type.Object({ type: Type.String(), amount: Type.Number(), currency_code: Str }));

// Stored values are identifiers; the published enum spells two of them with a space.
const EQUIPMENT_TYPE: Record<string, string> = { open_top: 'open top', flat_rack: 'flat rack' };

// servedStatus (terminal-attributes.ts): a discharged box the terminal reports on is available or
// not_available.
const SERVED_STATUS = (t: string) => `case when ${t}.current_status = 'grounded' and ${t}.availability_known
  and ${t}.available_for_pickup is not null then case when ${t}.available_for_pickup then 'available'
  else 'not_available' end else ${t}.current_status end`;

// The zone of the container's last empty return, kept from its events (migrations/0044).
const EMPTY_IN_ZONE = (t: string) =>
  `case when ${t}.empty_terminated_at is not null then ${t}.empty_in_timezone end`;

// The terminal's last check lives beside the container (migrations/0039), so that a check that
// finds nothing new writes no container row.
const TERMINAL_CHECKED_AT = (t: string) =>
  `(select tc.checked_at from container_terminal_checks tc where tc.container_id = ${t}.id)`;

// The container's events as its relationship's identifiers, stored in the row (migrations/0044)
// as resources in `included` write them (type, id); in `data` identifiers are id-first.
const INCLUDED_EVENT_IDS = (t: string) => `coalesce(${t}.transport_event_ids_json, '[]')`;
const EVENT_IDS = (
  t: string,
) => `replace(replace(${INCLUDED_EVENT_IDS(t)}, '{"type":"transport_event","id":"', '{"id":"'),
  '"}', '","type":"transport_event"}')`;

/** A to-many relationship given as ids and/or a link to the related list. */
const RelManyLinked = Type.Object({
  data: Type.Optional(Type.Array(Identifier)),
  links: Type.Optional(Type.Object({ related: Type.String() })),
});
const related = (t: string, list: string) =>
  obj([['related', [...lit('"/v2/containers/'), ...raw(`${t}.id::text`), ...lit(`/${list}"`)]]]);
const lastAttempt = (name: string) =>
  computed<ContainerSource, Ctx, 'shipment_last_attempted_at'>({
    name,
    schema: Time,
    js: (r) => iso(r.shipment_last_attempted_at),
    sql: () => time('s.line_tracking_last_attempted_at'),
    reads: ['shipment_last_attempted_at'],
  });
const shipmentZone = (
  name: string,
  field: 'shipment_pod_locode' | 'shipment_destination_locode',
  col: string,
) =>
  reference<ContainerSource, Ctx, typeof field>(
    name,
    Tz,
    'pz',
    referenceOf,
    { field, sql: () => `s.${col}` },
    false,
  );

export const CONTAINER = declare({
  type: 'container',
  description: 'A container during one journey (one shipment).',
  table: 'containers',
  collection: 'containers',
  stored: 'runs',
  attributes: [
    c.text('number', { notNull: true }),
    c.texts('ref_numbers', { notNull: true }),
    computed({
      name: 'equipment_type',
      schema: Nullable(Type.String({ enum: ['dry', 'reefer', 'open top', 'flat rack', 'bulk', 'tank'] })),
      js: (r: ContainerSource) =>
        r.equipment_type ? (EQUIPMENT_TYPE[r.equipment_type] ?? r.equipment_type) : null,
      sql: (t) =>
        val(
          `case ${t}.equipment_type when 'open_top' then 'open top' when 'flat_rack' then 'flat rack' else nullif(${t}.equipment_type, '') end`,
        ),
      stored: true,
      reads: ['equipment_type'],
    }),
    c.integer('equipment_length'),
    c.text('equipment_height', { schema: { enum: ['standard', 'high_cube'] } }),
    c.text('iso_equipment_code'),
    c.number('weight_in_lbs'),
    c.text('seal_number'),
    c.time('created_at', { notNull: true }),
    c.time('updated_at', { notNull: true }),
    computed({
      name: 'pickup_lfd',
      schema: Time,
      js: (r: ContainerSource) => iso(r.pickup_lfd_line ?? r.pickup_lfd_terminal ?? r.pickup_lfd_rail),
      sql: (t) => time(`coalesce(${t}.pickup_lfd_line, ${t}.pickup_lfd_terminal, ${t}.pickup_lfd_rail)`),
      stored: true,
      reads: ['pickup_lfd_line', 'pickup_lfd_terminal', 'pickup_lfd_rail'],
    }),
    c.time('pickup_appointment_at'),
    c.bool('availability_known', { notNull: true }),
    computed({
      name: 'available_for_pickup',
      schema: Nullable(Type.Boolean()),
      js: (r: ContainerSource) => (r.availability_known ? r.available_for_pickup : null),
      sql: (t) => val(`case when ${t}.availability_known then ${t}.available_for_pickup end`),
      stored: true,
      reads: ['availability_known', 'available_for_pickup'],
    }),
    c.time('pod_arrived_at'),
    c.time('pod_discharged_at'),
    c.time('pod_full_out_at'),
    computed({
      name: 'terminal_checked_at',
      schema: Time,
      js: (r: ContainerSource) => iso(r.terminal_checked_at),
      sql: (t) => time(TERMINAL_CHECKED_AT(t)),
      reads: ['terminal_checked_at'],
    }),
    c.text('pod_full_out_chassis_number'),
    c.text('location_at_pod_terminal'),
    c.time('final_destination_full_out_at'),
    c.time('empty_out_at'),
    c.time('pol_full_in_at'),
    c.time('pol_vessel_loaded_at'),
    c.time('pol_vessel_departed_at'),
    c.time('delivered_at'),
    c.time('empty_terminated_at'),
    computed({
      name: 'holds_at_pod_terminal',
      schema: HoldList,
      js: (r: ContainerSource) => jsonList(r.holds_at_pod_terminal),
      sql: (t) => raw(`${t}.holds_at_pod_terminal::text`),
      stored: true,
      reads: ['holds_at_pod_terminal'],
    }),
    computed({
      name: 'fees_at_pod_terminal',
      schema: FeeList,
      js: (r: ContainerSource) => jsonList(r.fees_at_pod_terminal),
      sql: (t) => raw(`${t}.fees_at_pod_terminal::text`),
      stored: true,
      reads: ['fees_at_pod_terminal'],
    }),
    shipmentZone('pod_timezone', 'shipment_pod_locode', 'port_of_discharge_locode'),
    shipmentZone('final_destination_timezone', 'shipment_destination_locode', 'destination_locode'),
    computed({
      name: 'empty_terminated_timezone',
      schema: Tz,
      js: (r: ContainerSource, events: Ctx) =>
        r.empty_terminated_at ? (events?.empty_in_timezone ?? null) : null,
      sql: (t) => val(EMPTY_IN_ZONE(t)),
      reads: ['empty_terminated_at'],
    }),
    alwaysNull('pod_rail_carrier_scac', Str),
    alwaysNull('ind_rail_carrier_scac', Str),
    lastAttempt('pod_last_tracking_request_at'),
    lastAttempt('shipment_last_tracking_request_at'),
    // Rail carriers are not asked here: there is no rail tracking request.
    alwaysNull('rail_last_tracking_request_at', Time),
    c.time('pod_rail_loaded_at'),
    c.time('pod_rail_departed_at'),
    c.time('ind_eta_at'),
    c.time('ind_ata_at'),
    c.time('ind_rail_unloaded_at'),
    // Inland facilities are not asked here: their holds, fees and last free day are unknown.
    alwaysNull('ind_facility_holds', Nullable(HoldList), true),
    alwaysNull('ind_facility_fees', Nullable(FeeList), true),
    alwaysNull('ind_facility_lfd_on', Time, true),
    computed({
      name: 'import_deadlines',
      schema: Type.Object({ pickup_lfd_terminal: Time, pickup_lfd_rail: Time, pickup_lfd_line: Time }),
      js: (r: ContainerSource) => importDeadlines(r),
      sql: (t) =>
        obj([
          ['pickup_lfd_terminal', time(`${t}.pickup_lfd_terminal`)],
          ['pickup_lfd_rail', time(`${t}.pickup_lfd_rail`)],
          ['pickup_lfd_line', time(`${t}.pickup_lfd_line`)],
        ]),
      stored: true,
      reads: ['pickup_lfd_terminal', 'pickup_lfd_rail', 'pickup_lfd_line'],
    }),
    // The shipping line's last free day, also among import_deadlines (pickup_lfd_line).
    c.time('pickup_lfd_line', { name: 'ssl_lfd' }),
    computed({
      name: 'current_status',
      schema: Type.String({ enum: [...CONTAINER_STATUSES] }),
      js: (r: ContainerSource) => servedStatus(r),
      sql: (t) => val(SERVED_STATUS(t)),
      stored: true,
      reads: ['current_status', 'availability_known', 'available_for_pickup'],
    }),
    // Beyond the reference (docs/api-notes.md): a user stopped tracking this container alone
    // (PATCH /v2/containers/{id}/stop_tracking). Not the shipment's line_tracking_stopped_at.
    c.time('tracking_stopped_at', {
      schema: { description: 'When tracking of this container alone was stopped; null while tracked.' },
    }),
    c.text('tracking_stopped_reason', { schema: { enum: [...CONTAINER_STOP_REASONS] } }),
  ],
  relationships: [
    c.toOne('shipment', 'shipment', 'shipment_id'),
    computed({
      name: 'pod_terminal',
      schema: RelOne,
      js: (r: ContainerSource) => one('terminal', r.pod_terminal_id ?? r.shipment_pod_terminal_id),
      sql: (t, form) =>
        obj([['data', ident('terminal', `coalesce(${t}.pod_terminal_id, s.pod_terminal_id)`, form)]]),
      reads: ['pod_terminal_id', 'shipment_pod_terminal_id'],
    }),
    noRelation('pickup_facility'),
    computed({
      name: 'transport_events',
      schema: RelManyLinked,
      js: (r: ContainerSource, events: Ctx) => ({
        ...many('transport_event', events?.ids ?? []),
        links: { related: `${API_PREFIX}/containers/${r.id}/transport_events` },
      }),
      sql: (t, form) =>
        obj([
          ['data', raw(form === 'data' ? EVENT_IDS(t) : INCLUDED_EVENT_IDS(t))],
          ['links', related(t, 'transport_events')],
        ]),
    }),
    computed({
      name: 'raw_events',
      schema: RelManyLinked,
      js: (r: ContainerSource) => ({ links: { related: `${API_PREFIX}/containers/${r.id}/raw_events` } }),
      sql: (t) => obj([['links', related(t, 'raw_events')]]),
    }),
  ],
});
