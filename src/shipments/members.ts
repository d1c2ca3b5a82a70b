import type { Selectable } from 'kysely';
import { Type } from 'typebox';
import type { ShipmentsTable } from '../db/schema.ts';
import { many } from '../jsonapi/resource.ts';
import { Nullable, RelMany } from '../jsonapi/schemas.ts';
import { idArray, type MarkerKind, obj, val } from '../members/json-text.ts';
import { columns, computed, declare, noRelation, portRelation, reference } from '../members/kit.ts';
import { referenceOf } from '../reference/markers.ts';

// The shipment resource, member for member (src/members/kit.ts says what a member declares and
// what is made of it). In SQL `s` is the shipment row and `v` its POD vessel (left joined).

/** The shipment row and its POD vessel's name and IMO (joined in queries.ts). */
export type ShipmentSource = Selectable<ShipmentsTable> & {
  pod_vessel_name: string | null;
  pod_vessel_imo: string | null;
};
/** The shipment's container ids, in number order. */
type Ctx = string[];

export const STOP_REASONS = [
  'all_containers_terminated',
  'past_arrival_window',
  'past_full_out_window',
  'no_updates_at_line',
  'cancelled_by_user',
  'booking_cancelled',
  // Beyond the reference: every container of the shipment was stopped on its own
  // (PATCH /v2/containers/{id}/stop_tracking; docs/api-notes.md).
  'all_containers_stopped',
] as const;

const s = columns<ShipmentSource, Ctx>();
const Str = Nullable(Type.String());
const Tz = Nullable(Type.String({ description: 'IANA tz' }));

type Locode = 'port_of_lading_locode' | 'port_of_discharge_locode' | 'destination_locode';
const fromRow = <K extends string>(field: K) => ({ field, sql: (t: string) => `${t}.${field}` });
const portValue = (name: string, kind: MarkerKind, field: Locode) =>
  reference<ShipmentSource, Ctx, Locode>(name, kind === 'pz' ? Tz : Str, kind, referenceOf, fromRow(field));
const lineValue = (name: string, kind: MarkerKind) =>
  reference<ShipmentSource, Ctx, 'scac'>(name, Type.String(), kind, referenceOf, fromRow('scac'));
const port = (name: string, field: Locode) =>
  portRelation<ShipmentSource, Ctx, Locode>(name, referenceOf, fromRow(field));
const vessel = (name: string, field: 'pod_vessel_name' | 'pod_vessel_imo', col: string) =>
  computed<ShipmentSource, Ctx, typeof field>({
    name,
    schema: Str,
    js: (r) => r[field],
    sql: () => val(`v.${col}`),
    reads: [field],
  });

export const SHIPMENT = declare({
  type: 'shipment',
  description: 'A shipment: one bill of lading or booking at one carrier, with its containers.',
  table: 'shipments',
  collection: 'shipments',
  stored: 'runs',
  attributes: [
    s.text('bill_of_lading_number', { notNull: true }),
    s.text('normalized_number', {
      notNull: true,
      schema: { description: 'The number the carrier is queried with.' },
    }),
    s.texts('ref_numbers', { notNull: true }),
    s.texts('tags', { notNull: true }),
    s.time('created_at', { notNull: true }),
    s.time('updated_at', { notNull: true }),
    s.text('port_of_lading_locode'),
    portValue('port_of_lading_name', 'pn', 'port_of_lading_locode'),
    s.text('port_of_discharge_locode'),
    portValue('port_of_discharge_name', 'pn', 'port_of_discharge_locode'),
    s.text('destination_locode'),
    portValue('destination_name', 'pn', 'destination_locode'),
    s.texts('transshipment_locodes', {
      notNull: true,
      schema: { description: 'UN/LOCODEs of transshipment ports, in route order.' },
    }),
    lineValue('shipping_line_scac', 'ls'),
    lineValue('shipping_line_name', 'ln'),
    lineValue('shipping_line_short_name', 'lk'),
    s.text('customer_name'),
    vessel('pod_vessel_name', 'pod_vessel_name', 'name'),
    vessel('pod_vessel_imo', 'pod_vessel_imo', 'imo'),
    s.text('pod_voyage_number'),
    s.time('pol_etd_at'),
    s.time('pol_atd_at'),
    s.time('pod_eta_at'),
    s.time('pod_original_eta_at'),
    s.time('pol_original_etd_at'),
    s.time('destination_original_eta_at'),
    s.time('pod_ata_at'),
    s.time('destination_eta_at'),
    s.time('destination_ata_at'),
    portValue('pol_timezone', 'pz', 'port_of_lading_locode'),
    portValue('pod_timezone', 'pz', 'port_of_discharge_locode'),
    portValue('destination_timezone', 'pz', 'destination_locode'),
    // The engine's bookkeeping: moves at every refresh, so it is not stored (no row rendering per
    // refresh that found nothing new).
    s.time('line_tracking_last_attempted_at', { stored: false }),
    s.time('line_tracking_last_succeeded_at', { stored: false }),
    s.time('line_tracking_stopped_at', { stored: false }),
    s.text('line_tracking_stopped_reason', { stored: false, schema: { enum: [...STOP_REASONS] } }),
  ],
  relationships: [
    port('port_of_lading', 'port_of_lading_locode'),
    port('port_of_discharge', 'port_of_discharge_locode'),
    port('destination', 'destination_locode'),
    s.toOne('pod_terminal', 'terminal', 'pod_terminal_id'),
    s.toOne('destination_terminal', 'terminal', 'destination_terminal_id'),
    computed<ShipmentSource, Ctx>({
      name: 'containers',
      schema: RelMany,
      js: (_r, containerIds) => many('container', containerIds),
      // The containers_by_shipment index (migrations/0035), in number order.
      sql: (t, form) =>
        obj([
          [
            'data',
            idArray(
              'container',
              form,
              `select id from containers where account_id = ${t}.account_id and shipment_id = ${t}.id order by number`,
            ),
          ],
        ]),
    }),
    // Stops are made through the API key's account; there are no users to point at.
    noRelation('line_tracking_stopped_by_user'),
  ],
});
