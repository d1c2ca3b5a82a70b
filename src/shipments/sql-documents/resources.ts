import { type Form, idArray, ident, type Json, lit, marker, num, obj, raw, time, val } from './json-text.ts';

// The resources of the hot reads as SQL JSON text, member for member what serializeShipment,
// serializeContainer and serializeTransportEvent write (../serializer.ts,
// ../containers/serializer.ts); test/api/sql-documents.test.ts compares whole documents of both.

const NULL = lit('null');
const PORT = { data: 'pd', included: 'pi' } as const;
const selfLink = (path: string): Json => [...lit('{"self":"/v2'), ...raw(path), ...lit('"}')];
const rel = (data: Json): Json => obj([['data', data]]);

/** The resource's members in the order its place in the document gives them (see Form). */
function resource(
  form: Form,
  head: Array<[string, Json]>,
  relationships: Array<[string, Json]>,
  links: Json,
): Json {
  return form === 'data'
    ? obj([...head, ['links', links], ['relationships', obj(relationships)]])
    : obj([...head, ['relationships', obj(relationships)], ['links', links]]);
}

/**
 * A shipment; `s` is the shipment row, `v` its POD vessel (left joined). Its containers' ids come
 * from the containers_by_shipment index (migrations/0035), in number order.
 */
export const shipmentJson = (form: Form): Json =>
  resource(
    form,
    [
      ['id', val('s.id::text')],
      ['type', lit('"shipment"')],
      [
        'attributes',
        obj([
          ['bill_of_lading_number', val('s.bill_of_lading_number')],
          ['normalized_number', val('s.normalized_number')],
          ['ref_numbers', val('s.ref_numbers')],
          ['tags', val('s.tags')],
          ['created_at', time('s.created_at')],
          ['updated_at', time('s.updated_at')],
          ['port_of_lading_locode', val('s.port_of_lading_locode')],
          ['port_of_lading_name', marker('pn', 's.port_of_lading_locode')],
          ['port_of_discharge_locode', val('s.port_of_discharge_locode')],
          ['port_of_discharge_name', marker('pn', 's.port_of_discharge_locode')],
          ['destination_locode', val('s.destination_locode')],
          ['destination_name', marker('pn', 's.destination_locode')],
          ['transshipment_locodes', val('s.transshipment_locodes')],
          ['shipping_line_scac', marker('ls', 's.scac')],
          ['shipping_line_name', marker('ln', 's.scac')],
          ['shipping_line_short_name', marker('lk', 's.scac')],
          ['customer_name', val('s.customer_name')],
          ['pod_vessel_name', val('v.name')],
          ['pod_vessel_imo', val('v.imo')],
          ['pod_voyage_number', val('s.pod_voyage_number')],
          ['pol_etd_at', time('s.pol_etd_at')],
          ['pol_atd_at', time('s.pol_atd_at')],
          ['pod_eta_at', time('s.pod_eta_at')],
          ['pod_original_eta_at', time('s.pod_original_eta_at')],
          ['pol_original_etd_at', time('s.pol_original_etd_at')],
          ['destination_original_eta_at', time('s.destination_original_eta_at')],
          ['pod_ata_at', time('s.pod_ata_at')],
          ['destination_eta_at', time('s.destination_eta_at')],
          ['destination_ata_at', time('s.destination_ata_at')],
          ['pol_timezone', marker('pz', 's.port_of_lading_locode')],
          ['pod_timezone', marker('pz', 's.port_of_discharge_locode')],
          ['destination_timezone', marker('pz', 's.destination_locode')],
          ['line_tracking_last_attempted_at', time('s.line_tracking_last_attempted_at')],
          ['line_tracking_last_succeeded_at', time('s.line_tracking_last_succeeded_at')],
          ['line_tracking_stopped_at', time('s.line_tracking_stopped_at')],
          ['line_tracking_stopped_reason', val('s.line_tracking_stopped_reason')],
        ]),
      ],
    ],
    [
      ['port_of_lading', rel(marker(PORT[form], 's.port_of_lading_locode'))],
      ['port_of_discharge', rel(marker(PORT[form], 's.port_of_discharge_locode'))],
      ['destination', rel(marker(PORT[form], 's.destination_locode'))],
      ['pod_terminal', rel(ident('terminal', 's.pod_terminal_id', form))],
      ['destination_terminal', rel(ident('terminal', 's.destination_terminal_id', form))],
      [
        'containers',
        rel(
          idArray(
            'container',
            form,
            'select id from containers where account_id = s.account_id and shipment_id = s.id order by number',
          ),
        ),
      ],
      ['line_tracking_stopped_by_user', rel(NULL)],
    ],
    selfLink(`'/shipments/' || s.id`),
  );

const EQUIPMENT_TYPE = `case c.equipment_type when 'open_top' then 'open top' when 'flat_rack' then 'flat rack' else nullif(c.equipment_type, '') end`;

// The zone of the container's last empty return (its transport events in history order).
const EMPTY_IN_ZONE = `case when c.empty_terminated_at is not null then (select e.timezone from transport_events e
  where e.account_id = c.account_id and e.container_id = c.id and e.event = 'container.transport.empty_in'
  order by e."timestamp" desc nulls first, e.key desc limit 1) end`;

// The terminal's last check lives beside the container (migrations/0039), so that a check that
// finds nothing new writes no container row.
const TERMINAL_CHECKED_AT =
  '(select tc.checked_at from container_terminal_checks tc where tc.container_id = c.id)';

// servedStatus (../containers/terminal-attributes.ts): a discharged box the terminal reports on is
// available or not_available.
const SERVED_STATUS = `case when c.current_status = 'grounded' and c.availability_known
  and c.available_for_pickup is not null then case when c.available_for_pickup then 'available'
  else 'not_available' end else c.current_status end`;

/** A container; `c` is the container row, `s` its shipment. */
export const containerJson = (form: Form): Json =>
  resource(
    form,
    [
      ['id', val('c.id::text')],
      ['type', lit('"container"')],
      [
        'attributes',
        obj([
          ['number', val('c.number')],
          ['ref_numbers', val('c.ref_numbers')],
          ['equipment_type', val(EQUIPMENT_TYPE)],
          ['equipment_length', num('c.equipment_length')],
          ['equipment_height', val('c.equipment_height')],
          ['iso_equipment_code', val('c.iso_equipment_code')],
          ['weight_in_lbs', num('c.weight_in_lbs')],
          ['seal_number', val('c.seal_number')],
          ['created_at', time('c.created_at')],
          ['updated_at', time('c.updated_at')],
          ['pickup_lfd', time('coalesce(c.pickup_lfd_line, c.pickup_lfd_terminal, c.pickup_lfd_rail)')],
          ['pickup_appointment_at', time('c.pickup_appointment_at')],
          ['availability_known', val('c.availability_known')],
          ['available_for_pickup', val('case when c.availability_known then c.available_for_pickup end')],
          ['pod_arrived_at', time('c.pod_arrived_at')],
          ['pod_discharged_at', time('c.pod_discharged_at')],
          ['pod_full_out_at', time('c.pod_full_out_at')],
          ['terminal_checked_at', time(TERMINAL_CHECKED_AT)],
          ['pod_full_out_chassis_number', val('c.pod_full_out_chassis_number')],
          ['location_at_pod_terminal', val('c.location_at_pod_terminal')],
          ['final_destination_full_out_at', time('c.final_destination_full_out_at')],
          ['empty_out_at', time('c.empty_out_at')],
          ['pol_full_in_at', time('c.pol_full_in_at')],
          ['pol_vessel_loaded_at', time('c.pol_vessel_loaded_at')],
          ['pol_vessel_departed_at', time('c.pol_vessel_departed_at')],
          ['delivered_at', time('c.delivered_at')],
          ['empty_terminated_at', time('c.empty_terminated_at')],
          ['holds_at_pod_terminal', raw('c.holds_at_pod_terminal::text')],
          ['fees_at_pod_terminal', raw('c.fees_at_pod_terminal::text')],
          ['pod_timezone', marker('pz', 's.port_of_discharge_locode')],
          ['final_destination_timezone', marker('pz', 's.destination_locode')],
          ['empty_terminated_timezone', val(EMPTY_IN_ZONE)],
          ['pod_rail_carrier_scac', NULL],
          ['ind_rail_carrier_scac', NULL],
          ['pod_last_tracking_request_at', time('s.line_tracking_last_attempted_at')],
          ['shipment_last_tracking_request_at', time('s.line_tracking_last_attempted_at')],
          ['pod_rail_loaded_at', time('c.pod_rail_loaded_at')],
          ['pod_rail_departed_at', time('c.pod_rail_departed_at')],
          ['ind_eta_at', time('c.ind_eta_at')],
          ['ind_ata_at', time('c.ind_ata_at')],
          ['ind_rail_unloaded_at', time('c.ind_rail_unloaded_at')],
          ['ind_facility_lfd_on', NULL],
          [
            'import_deadlines',
            obj([
              ['pickup_lfd_terminal', time('c.pickup_lfd_terminal')],
              ['pickup_lfd_rail', time('c.pickup_lfd_rail')],
              ['pickup_lfd_line', time('c.pickup_lfd_line')],
            ]),
          ],
          ['current_status', val(SERVED_STATUS)],
        ]),
      ],
    ],
    [
      ['shipment', rel(ident('shipment', 'c.shipment_id', form))],
      ['pod_terminal', rel(ident('terminal', 'coalesce(c.pod_terminal_id, s.pod_terminal_id)', form))],
      ['pickup_facility', rel(NULL)],
      [
        'transport_events',
        obj([
          [
            'data',
            idArray(
              'transport_event',
              form,
              'select id from transport_events where account_id = c.account_id and container_id = c.id order by "timestamp" nulls last, key',
            ),
          ],
          [
            'links',
            obj([
              ['related', [...lit('"/v2/containers/'), ...raw('c.id::text'), ...lit('/transport_events"')]],
            ]),
          ],
        ]),
      ],
      [
        'raw_events',
        obj([
          [
            'links',
            obj([['related', [...lit('"/v2/containers/'), ...raw('c.id::text'), ...lit('/raw_events"')]]]),
          ],
        ]),
      ],
    ],
    selfLink(`'/containers/' || c.id`),
  );

/** A transport event; `e` is its row. */
export const transportEventJson = (form: Form): Json =>
  resource(
    form,
    [
      ['id', val('e.id::text')],
      ['type', lit('"transport_event"')],
      [
        'attributes',
        obj([
          ['event', val('e.event')],
          ['created_at', time('e.created_at')],
          ['voyage_number', val('e.voyage_number')],
          ['timestamp', time('e."timestamp"')],
          ['timezone', val('e.timezone')],
          ['location_locode', val('e.location_locode')],
          ['data_source', val('e.data_source')],
          ['invalidated_at', time('e.invalidated_at')],
        ]),
      ],
    ],
    [
      ['shipment', rel(ident('shipment', 'e.shipment_id', form))],
      ['container', rel(ident('container', 'e.container_id', form))],
      ['location', rel(marker(PORT[form], 'e.location_locode'))],
      ['terminal', rel(ident('terminal', 'e.terminal_id', form))],
      ['vessel', rel(ident('vessel', 'e.vessel_id', form))],
    ],
    selfLink(`'/transport_events/' || e.id`),
  );

/** A vessel (as serializeVessel writes it; only in `included`); `v` is its row. */
export const vesselJson: Json = obj([
  ['id', val('v.id::text')],
  ['type', lit('"vessel"')],
  [
    'attributes',
    obj([
      ['name', val('v.name')],
      ['imo', val('v.imo')],
      ['mmsi', NULL],
      ['latitude', NULL],
      ['longitude', NULL],
      ['nautical_speed_knots', NULL],
      ['navigational_heading_degrees', NULL],
      ['position_timestamp', NULL],
      ['positions', NULL],
    ]),
  ],
  ['links', selfLink(`'/vessels/' || v.id`)],
]);
