import type { Statement } from '../../db/database.ts';
import type { TimeSort } from '../time-sort.ts';
import { sqlOf, statement } from './json-text.ts';
import { containerJson, shipmentJson, vesselJson } from './resources.ts';

// The hot reads as single statements that answer the document's JSON text (see json-text.ts).
// Parameters: $1 the account, then the statement's own. Plans and the indexes
// they use: docs/benchmarks.md ("Database path of the hot reads"), migrations/0035.

const SHIPMENT = sqlOf(shipmentJson('data'));
const CONTAINER = sqlOf(containerJson('data'));
const INCLUDED_CONTAINER = sqlOf(containerJson('included'));
const VESSEL = sqlOf(vesselJson);

/** The containers of shipment `s` (in number order), for include=containers. */
const CONTAINERS_OF_S = `select string_agg(${INCLUDED_CONTAINER}, ',' order by c.number)
  from containers c where c.account_id = s.account_id and c.shipment_id = s.id`;

/** $2 shipment id, $3 with its containers: [shipment, containers or null]. */
export const shipmentById: Statement = statement(
  'shipment',
  `select ${SHIPMENT}, case when $3::boolean then coalesce((${CONTAINERS_OF_S}), '') end
  from shipments s left join vessels v on v.id = s.pod_vessel_id
  where s.account_id = $1 and s.id = $2`,
);

/** $2 container id: [container]. */
export const containerById: Statement = statement(
  'container',
  `select ${CONTAINER} from containers c join shipments s on s.id = c.shipment_id
  where c.account_id = $1 and c.id = $2`,
);

/**
 * $2 container id, $3 limit, $4 offset, $5/$6/$7 with the page's locations/terminals/vessels:
 * [container id or null when not the account's, the page's events, how many the container has,
 * the events' locodes and terminal ids in event order (JSON arrays; the ports and terminals are
 * reference data, serialised in the process), the vessels they name in first-named order].
 */
export const containerEvents: Statement = statement(
  'container_events',
  `with page as (
    select *, row_number() over (order by "timestamp" nulls last, key) as pos
    from transport_events where account_id = $1 and container_id = $2
    order by "timestamp" nulls last, key limit $3 offset $4)
  select (select c.id::text from containers c where c.account_id = $1 and c.id = $2),
    (select string_agg(e.resource_json, ',' order by e.pos) from page e),
    (select count(*)::int from transport_events where account_id = $1 and container_id = $2),
    case when $5::boolean then (select to_json(array(select location_locode from page order by pos))::text) end,
    case when $6::boolean then (select to_json(array(select terminal_id from page order by pos))::text) end,
    case when $7::boolean then (select string_agg(${VESSEL}, ',' order by v.first) from (
      select v.id, v.name, v.imo, min(p.pos) as first from page p join vessels v on v.id = p.vessel_id
      group by v.id) v) end`,
);

const shipmentPages = new Map<string, Statement>();

/**
 * A page of the account's shipments, unfiltered. $2 limit, $3 offset, $4 with their containers:
 * [shipments, containers or null, total]. The containers follow the shipments' ids, then numbers
 * (as the JavaScript path includes them). The total is the account's maintained count
 * (migrations/0036), not a count of its rows.
 */
export function shipmentPage(sort: TimeSort): Statement {
  const key = `${sort.column}:${sort.desc}`;
  let st = shipmentPages.get(key);
  if (!st) {
    const dir = sort.desc ? 'desc' : 'asc';
    const order = `s.${sort.column} ${dir}, s.id ${dir}`;
    st = statement(
      `shipments_${sort.column}_${dir}`,
      `with page as (select s.id from shipments s where s.account_id = $1 order by ${order} limit $2 offset $3)
      select (select string_agg(${SHIPMENT}, ',' order by ${order})
          from page p join shipments s on s.id = p.id left join vessels v on v.id = s.pod_vessel_id),
        case when $4::boolean then coalesce((select string_agg(${INCLUDED_CONTAINER}, ',' order by c.shipment_id, c.number)
          from page p join containers c on c.shipment_id = p.id join shipments s on s.id = c.shipment_id
          where c.account_id = $1), '') end,
        coalesce((select shipments from account_shipment_counts where account_id = $1), 0)`,
    );
    shipmentPages.set(key, st);
  }
  return st;
}

const containerPages = new Map<string, Statement>();

/**
 * A page of the account's containers, unfiltered, without includes. $2 limit, $3 offset:
 * [containers, total] (the account's maintained count, migrations/0036).
 */
export function containerPage(sort: TimeSort): Statement {
  const key = `${sort.column}:${sort.desc}`;
  let st = containerPages.get(key);
  if (!st) {
    const dir = sort.desc ? 'desc' : 'asc';
    const order = `c.${sort.column} ${dir}, c.id ${dir}`;
    st = statement(
      `containers_${sort.column}_${dir}`,
      `with page as (select c.id from containers c where c.account_id = $1 order by ${order} limit $2 offset $3)
      select (select string_agg(${CONTAINER}, ',' order by ${order})
          from page p join containers c on c.id = p.id join shipments s on s.id = c.shipment_id),
        coalesce((select containers from account_shipment_counts where account_id = $1), 0)`,
    );
    containerPages.set(key, st);
  }
  return st;
}
