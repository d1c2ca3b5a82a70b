import {
  type Form,
  idArray,
  ident,
  type Json,
  lit,
  marker,
  obj,
  raw,
  SPLICE,
  time,
  val,
} from './json-text.ts';
import { stored } from './stored.ts';

// The resources of the hot reads as SQL JSON text, member for member what serializeShipment and
// serializeContainer write (the transport event, stored whole, is in stored.ts) (../serializer.ts,
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
 * A shipment; `s` is the shipment row, `v` its POD vessel (left joined). Its own attributes are
 * stored in the row (stored.ts); its containers' ids come from the containers_by_shipment index
 * (migrations/0035), in number order.
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
          [SPLICE, stored('s', 'attributes_json_1')],
          ['pod_vessel_name', val('v.name')],
          ['pod_vessel_imo', val('v.imo')],
          [SPLICE, stored('s', 'attributes_json_2')],
          // The engine's bookkeeping: moves at every refresh, so it is not stored (no row rendering
          // per refresh that found nothing new).
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

// The zone of the container's last empty return, kept from its events (migrations/0044).
const EMPTY_IN_ZONE = 'case when c.empty_terminated_at is not null then c.empty_in_timezone end';

// The terminal's last check lives beside the container (migrations/0039), so that a check that
// finds nothing new writes no container row.
const TERMINAL_CHECKED_AT =
  '(select tc.checked_at from container_terminal_checks tc where tc.container_id = c.id)';

// The container's events as its relationship's identifiers, stored in the row (migrations/0044)
// as resources in `included` write them (type, id); in `data` identifiers are id-first.
const INCLUDED_EVENT_IDS = `coalesce(c.transport_event_ids_json, '[]')`;
const EVENT_IDS = `replace(replace(${INCLUDED_EVENT_IDS}, '{"type":"transport_event","id":"', '{"id":"'),
  '"}', '","type":"transport_event"}')`;

/** A container; `c` is the container row (its own attributes stored in it), `s` its shipment. */
export const containerJson = (form: Form): Json =>
  resource(
    form,
    [
      ['id', val('c.id::text')],
      ['type', lit('"container"')],
      [
        'attributes',
        obj([
          [SPLICE, stored('c', 'attributes_json_1')],
          ['terminal_checked_at', time(TERMINAL_CHECKED_AT)],
          [SPLICE, stored('c', 'attributes_json_2')],
          ['pod_timezone', marker('pz', 's.port_of_discharge_locode')],
          ['final_destination_timezone', marker('pz', 's.destination_locode')],
          ['empty_terminated_timezone', val(EMPTY_IN_ZONE)],
          ['pod_rail_carrier_scac', NULL],
          ['ind_rail_carrier_scac', NULL],
          ['pod_last_tracking_request_at', time('s.line_tracking_last_attempted_at')],
          ['shipment_last_tracking_request_at', time('s.line_tracking_last_attempted_at')],
          [SPLICE, stored('c', 'attributes_json_3')],
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
          ['data', raw(form === 'data' ? EVENT_IDS : INCLUDED_EVENT_IDS)],
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
