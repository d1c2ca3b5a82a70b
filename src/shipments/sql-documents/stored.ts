import {
  ident,
  type Json,
  lit,
  type Members,
  marker,
  membersOf,
  num,
  obj,
  raw,
  SPLICE,
  sqlOf,
  time,
  val,
} from './json-text.ts';

// The parts of the hot documents that depend on nothing but their own row, written as JSON text
// into the row itself by a BEFORE INSERT OR UPDATE trigger (migrations/0043), so that a read
// concatenates stored text instead of formatting ~30 timestamps per container again on every
// request (to_char is about 1 µs each). What depends on other rows (the vessel's name, the
// shipment's ports for a container, the terminal's last check; the events' ids and last empty-return
// zone are kept in the container by migrations/0044) and the engine's
// bookkeeping (line-tracking attempt times, which move at every refresh) stays in the read
// statements (resources.ts). The triggers fire only on updates that set a column their pieces read.
//
// The trigger functions in the database must be the ones `renderFunctions()` writes:
// test/api/stored-json.test.ts compares them, so a change here needs a migration that replaces the
// functions and renders the rows again (as 0043 does).

/** A stored piece: the column that holds it and the members it renders (`t` is the row's alias). */
interface Piece {
  column: string;
  members: (t: string) => Members;
}

interface StoredTable {
  table: string;
  fn: string;
  pieces: Piece[];
}

const EQUIPMENT_TYPE = (t: string) =>
  `case ${t}.equipment_type when 'open_top' then 'open top' when 'flat_rack' then 'flat rack' else nullif(${t}.equipment_type, '') end`;

// servedStatus (../containers/terminal-attributes.ts): a discharged box the terminal reports on is
// available or not_available.
const SERVED_STATUS = (t: string) => `case when ${t}.current_status = 'grounded' and ${t}.availability_known
  and ${t}.available_for_pickup is not null then case when ${t}.available_for_pickup then 'available'
  else 'not_available' end else ${t}.current_status end`;

export const SHIPMENTS: StoredTable = {
  table: 'shipments',
  fn: 'render_shipment_json',
  pieces: [
    {
      column: 'attributes_json_1',
      members: (s) => [
        ['bill_of_lading_number', val(`${s}.bill_of_lading_number`)],
        ['normalized_number', val(`${s}.normalized_number`)],
        ['ref_numbers', val(`${s}.ref_numbers`)],
        ['tags', val(`${s}.tags`)],
        ['created_at', time(`${s}.created_at`)],
        ['updated_at', time(`${s}.updated_at`)],
        ['port_of_lading_locode', val(`${s}.port_of_lading_locode`)],
        ['port_of_lading_name', marker('pn', `${s}.port_of_lading_locode`)],
        ['port_of_discharge_locode', val(`${s}.port_of_discharge_locode`)],
        ['port_of_discharge_name', marker('pn', `${s}.port_of_discharge_locode`)],
        ['destination_locode', val(`${s}.destination_locode`)],
        ['destination_name', marker('pn', `${s}.destination_locode`)],
        ['transshipment_locodes', val(`${s}.transshipment_locodes`)],
        ['shipping_line_scac', marker('ls', `${s}.scac`)],
        ['shipping_line_name', marker('ln', `${s}.scac`)],
        ['shipping_line_short_name', marker('lk', `${s}.scac`)],
        ['customer_name', val(`${s}.customer_name`)],
      ],
    },
    {
      column: 'attributes_json_2',
      members: (s) => [
        ['pod_voyage_number', val(`${s}.pod_voyage_number`)],
        ['pol_etd_at', time(`${s}.pol_etd_at`)],
        ['pol_atd_at', time(`${s}.pol_atd_at`)],
        ['pod_eta_at', time(`${s}.pod_eta_at`)],
        ['pod_original_eta_at', time(`${s}.pod_original_eta_at`)],
        ['pol_original_etd_at', time(`${s}.pol_original_etd_at`)],
        ['destination_original_eta_at', time(`${s}.destination_original_eta_at`)],
        ['pod_ata_at', time(`${s}.pod_ata_at`)],
        ['destination_eta_at', time(`${s}.destination_eta_at`)],
        ['destination_ata_at', time(`${s}.destination_ata_at`)],
        ['pol_timezone', marker('pz', `${s}.port_of_lading_locode`)],
        ['pod_timezone', marker('pz', `${s}.port_of_discharge_locode`)],
        ['destination_timezone', marker('pz', `${s}.destination_locode`)],
      ],
    },
  ],
};

export const CONTAINERS: StoredTable = {
  table: 'containers',
  fn: 'render_container_json',
  pieces: [
    {
      column: 'attributes_json_1',
      members: (c) => [
        ['number', val(`${c}.number`)],
        ['ref_numbers', val(`${c}.ref_numbers`)],
        ['equipment_type', val(EQUIPMENT_TYPE(c))],
        ['equipment_length', num(`${c}.equipment_length`)],
        ['equipment_height', val(`${c}.equipment_height`)],
        ['iso_equipment_code', val(`${c}.iso_equipment_code`)],
        ['weight_in_lbs', num(`${c}.weight_in_lbs`)],
        ['seal_number', val(`${c}.seal_number`)],
        ['created_at', time(`${c}.created_at`)],
        ['updated_at', time(`${c}.updated_at`)],
        [
          'pickup_lfd',
          time(`coalesce(${c}.pickup_lfd_line, ${c}.pickup_lfd_terminal, ${c}.pickup_lfd_rail)`),
        ],
        ['pickup_appointment_at', time(`${c}.pickup_appointment_at`)],
        ['availability_known', val(`${c}.availability_known`)],
        ['available_for_pickup', val(`case when ${c}.availability_known then ${c}.available_for_pickup end`)],
        ['pod_arrived_at', time(`${c}.pod_arrived_at`)],
        ['pod_discharged_at', time(`${c}.pod_discharged_at`)],
        ['pod_full_out_at', time(`${c}.pod_full_out_at`)],
      ],
    },
    {
      column: 'attributes_json_2',
      members: (c) => [
        ['pod_full_out_chassis_number', val(`${c}.pod_full_out_chassis_number`)],
        ['location_at_pod_terminal', val(`${c}.location_at_pod_terminal`)],
        ['final_destination_full_out_at', time(`${c}.final_destination_full_out_at`)],
        ['empty_out_at', time(`${c}.empty_out_at`)],
        ['pol_full_in_at', time(`${c}.pol_full_in_at`)],
        ['pol_vessel_loaded_at', time(`${c}.pol_vessel_loaded_at`)],
        ['pol_vessel_departed_at', time(`${c}.pol_vessel_departed_at`)],
        ['delivered_at', time(`${c}.delivered_at`)],
        ['empty_terminated_at', time(`${c}.empty_terminated_at`)],
        ['holds_at_pod_terminal', raw(`${c}.holds_at_pod_terminal::text`)],
        ['fees_at_pod_terminal', raw(`${c}.fees_at_pod_terminal::text`)],
      ],
    },
    {
      column: 'attributes_json_3',
      members: (c) => [
        ['pod_rail_loaded_at', time(`${c}.pod_rail_loaded_at`)],
        ['pod_rail_departed_at', time(`${c}.pod_rail_departed_at`)],
        ['ind_eta_at', time(`${c}.ind_eta_at`)],
        ['ind_ata_at', time(`${c}.ind_ata_at`)],
        ['ind_rail_unloaded_at', time(`${c}.ind_rail_unloaded_at`)],
        ['ind_facility_lfd_on', lit('null')],
        [
          'import_deadlines',
          obj([
            ['pickup_lfd_terminal', time(`${c}.pickup_lfd_terminal`)],
            ['pickup_lfd_rail', time(`${c}.pickup_lfd_rail`)],
            ['pickup_lfd_line', time(`${c}.pickup_lfd_line`)],
          ]),
        ],
        ['current_status', val(SERVED_STATUS(c))],
      ],
    },
  ],
};

const selfLink = (path: string): Json => [...lit('{"self":"/v2'), ...raw(path), ...lit('"}')];

/**
 * A transport event (as serializeTransportEvent writes it in `data`): nothing but its own row, so
 * the whole resource is stored.
 */
const transportEventJson = (e: string): Json =>
  obj([
    ['id', val(`${e}.id::text`)],
    ['type', lit('"transport_event"')],
    [
      'attributes',
      obj([
        ['event', val(`${e}.event`)],
        ['created_at', time(`${e}.created_at`)],
        ['voyage_number', val(`${e}.voyage_number`)],
        ['timestamp', time(`${e}."timestamp"`)],
        ['timezone', val(`${e}.timezone`)],
        ['location_locode', val(`${e}.location_locode`)],
        ['data_source', val(`${e}.data_source`)],
        ['invalidated_at', time(`${e}.invalidated_at`)],
      ]),
    ],
    ['links', selfLink(`'/transport_events/' || ${e}.id`)],
    [
      'relationships',
      obj([
        ['shipment', obj([['data', ident('shipment', `${e}.shipment_id`, 'data')]])],
        ['container', obj([['data', ident('container', `${e}.container_id`, 'data')]])],
        ['location', obj([['data', marker('pd', `${e}.location_locode`)]])],
        ['terminal', obj([['data', ident('terminal', `${e}.terminal_id`, 'data')]])],
        ['vessel', obj([['data', ident('vessel', `${e}.vessel_id`, 'data')]])],
      ]),
    ],
  ]);

/** A transport event's whole resource (as `data`: the events list) is stored. */
export const TRANSPORT_EVENTS: StoredTable = {
  table: 'transport_events',
  fn: 'render_transport_event_json',
  pieces: [{ column: 'resource_json', members: (e) => [[SPLICE, transportEventJson(e)]] }],
};

const NULL = lit('null');

/** A vessel (as serializeVessel writes it; only in `included`): its own row only, stored whole. */
const vesselJson = (v: string): Json =>
  obj([
    ['id', val(`${v}.id::text`)],
    ['type', lit('"vessel"')],
    [
      'attributes',
      obj([
        ['name', val(`${v}.name`)],
        ['imo', val(`${v}.imo`)],
        ['mmsi', NULL],
        ['latitude', NULL],
        ['longitude', NULL],
        ['nautical_speed_knots', NULL],
        ['navigational_heading_degrees', NULL],
        ['position_timestamp', NULL],
        ['positions', NULL],
      ]),
    ],
    ['links', selfLink(`'/vessels/' || ${v}.id`)],
  ]);

export const VESSELS: StoredTable = {
  table: 'vessels',
  fn: 'render_vessel_json',
  pieces: [{ column: 'resource_json', members: (v) => [[SPLICE, vesselJson(v)]] }],
};

export const STORED_TABLES = [SHIPMENTS, CONTAINERS, TRANSPORT_EVENTS, VESSELS];

/** A stored piece as read (`t` the row's alias): raw JSON members to splice into an object. */
export const stored = (t: string, column: string): Json => raw(`${t}.${column}`);

/** The columns a table's pieces read (the trigger fires on updates that set one of them). */
export function columnsRead(t: StoredTable): string[] {
  const cols = new Set<string>();
  for (const p of t.pieces)
    for (const m of sqlOf(membersOf(p.members('new'))).matchAll(/\bnew\.("?)(\w+)\1/g)) cols.add(m[2]!);
  return [...cols].sort();
}

/** The trigger function that renders a table's pieces into NEW (plpgsql, as migrations hold it). */
export function renderFunction(t: StoredTable): string {
  const assigns = t.pieces
    .map((p) => `  new.${p.column} := ${sqlOf(membersOf(p.members('new')))};`)
    .join('\n');
  return `create or replace function ${t.fn}() returns trigger language plpgsql as $$\nbegin\n${assigns}\n  return new;\nend $$;`;
}
