import type { BatchStatement } from '../../db/batched-rows.ts';
import type { Statement } from '../../db/database.ts';
import { sqlOf, statement } from '../../members/json-text.ts';
import { MAX_PAGE_SIZE } from '../../util/page.ts';
import type { TimeSort } from '../time-sort.ts';
import { containerJson, shipmentJson } from './resources.ts';

// The hot reads as single statements that answer the body's JSON text (see json-text.ts).
// Parameters: $1 the account, then the statement's own. Plans and the indexes
// they use: docs/benchmarks.md ("Database path of the hot reads"), migrations/0035.

const SHIPMENT = sqlOf(shipmentJson('data'));
const CONTAINER = sqlOf(containerJson('data'));
const INCLUDED_CONTAINER = sqlOf(containerJson('included'));

/** The containers of shipment `s` (in number order), for include=containers. */
const CONTAINERS_OF_S = `select string_agg(${INCLUDED_CONTAINER}, ',' order by c.number)
  from containers c where c.account_id = s.account_id and c.shipment_id = s.id`;

/**
 * Statements made on first use, one per variant (`key`): a variant's flags (with containers,
 * which includes) are written into its text rather than passed as parameters. With a boolean parameter
 * the generic plan carries the cost of every branch, so PostgreSQL kept choosing custom plans and
 * planned the whole statement again at every execution (~290 µs of a ~430 µs shipment read, with
 * the containers left out); one text per variant gets its generic plan after five executions.
 */
const made = new Map<string, Statement | BatchStatement>();
function variant<T extends Statement | BatchStatement>(key: string, make: () => T): T {
  let st = made.get(key) as T | undefined;
  if (!st) {
    st = make();
    made.set(key, st);
  }
  return st;
}

/** Ids a batched look-up's statement answers at most (db/batched-rows.ts). */
export const BATCH_SLOTS = 16;

/** The ids of a batched statement, $2 … $(BATCH_SLOTS + 1), as rows of `b(id)`. */
const BATCH_IDS = `unnest(array[${Array.from({ length: BATCH_SLOTS }, (_, i) => `$${i + 2}::uuid`).join(', ')}]) b(id)`;

/** A batched variant (made on first use, as `variant`): its statement and its slots. */
const batched = (key: string, make: () => Statement): BatchStatement =>
  variant(`batched:${key}`, () => ({ statement: make(), slots: BATCH_SLOTS }));

/** Shipments by id, batched: a row per shipment found, [id, shipment, containers (with them)]. */
export const shipmentsById = (withContainers: boolean): BatchStatement =>
  batched(`shipment:${withContainers}`, () =>
    statement(
      withContainers ? 'shipments_containers_by_id' : 'shipments_by_id',
      `select s.id::text, ${SHIPMENT}${withContainers ? `, coalesce((${CONTAINERS_OF_S}), '')` : ''}
  from ${BATCH_IDS} join shipments s on s.id = b.id left join vessels v on v.id = s.pod_vessel_id
  where s.account_id = $1`,
    ),
  );

/** Containers by id, batched: a row per container found, [id, container]. */
export const containersById: BatchStatement = batched('container', () =>
  statement(
    'containers_by_id',
    `select c.id::text, ${CONTAINER} from ${BATCH_IDS} join containers c on c.id = b.id
  join shipments s on s.id = c.shipment_id
  where c.account_id = $1`,
  ),
);

/** The includes of a container's events the SQL answers. */
export interface EventIncludes {
  location: boolean;
  terminal: boolean;
  vessel: boolean;
}

/**
 * Containers' events, batched: the container ids in the slots, then the limit and offset. No row
 * for a container that is not the account's, else [id, container id, the page's events, how many
 * the container has, then with the includes asked for (else null) the events' locodes and terminal
 * ids in event order (JSON arrays; the ports and terminals are reference data, serialised in the
 * process), the vessels they name in first-named order]. The count is the container's
 * (migrations/0046).
 *
 * A first page that holds all of the container's events (the default page of 100 holds nearly
 * every container's) is the container's stored list (migrations/0048): one row, and the events are
 * not read. Any other page reads its rows once, into one aggregate; `page` runs only then (its
 * condition names no column, so PostgreSQL tests it once, before the scan). The aggregates take the
 * page's rows in the order the page gives them (an aggregate over a sorted subquery, with nothing
 * joined in between, reads it in that order; PostgreSQL documents this for aggregates such as
 * string_agg): written with their own ORDER BY, PostgreSQL 15 sorted the page again per aggregate.
 */
export const containerEvents = ({ location, terminal, vessel }: EventIncludes): BatchStatement => {
  const key = [location, terminal, vessel].map((b) => (b ? '1' : '0')).join('');
  const none = 'null::text';
  const [limit, offset] = [`$${BATCH_SLOTS + 2}::int`, `$${BATCH_SLOTS + 3}::int`];
  return batched(`events:${key}`, () =>
    statement(
      `container_events_${key}`,
      `select b.id::text, r.* from ${BATCH_IDS} cross join lateral (
  with box as (select c.id, c.transport_event_count as n from containers c where c.account_id = $1 and c.id = b.id),
  whole as (select l.* from container_event_lists l join box on l.container_id = box.id
    where ${offset} = 0 and box.n <= ${limit}),
  page as (
    select resource_json, location_locode, terminal_id, vessel_id
    from transport_events where account_id = $1 and container_id = b.id and not exists (select from whole)
    order by "timestamp" nulls last, key limit ${limit} offset ${offset}),
  agg as (select string_agg(resource_json, ',') as data${
    location ? `, to_json(array_agg(location_locode))::text as locodes` : ''
  }${terminal ? `, to_json(array_agg(terminal_id))::text as terminals` : ''}${
    vessel ? `, array_agg(vessel_id) as vessels` : ''
  } from page)
  select box.id::text as container_id, coalesce(w.events_json, a.data) as data, box.n,
    ${location ? 'coalesce(w.locodes_json, a.locodes)' : none} as locodes, ${terminal ? 'coalesce(w.terminals_json, a.terminals)' : none} as terminals,
    ${
      vessel
        ? `(select string_agg(v.resource_json, ',' order by array_position(x.ids, v.id))
      from vessels v, (select coalesce(w.vessel_ids, a.vessels) as ids) x where v.id = any(x.ids))`
        : none
    } as vessels
  from box cross join agg a left join whole w on true) r`,
    ),
  );
};

// The page size is written into a list's text too: with `limit $n` the generic plan expects a
// tenth of the account's rows and joins them by hash (68 ms a page of 30 at 10,000 shipments), so
// PostgreSQL planned every execution instead. Sizes are 1-100 (page[size] is capped). A page
// answers a row per shipment (one ~15 KB text each, not one ~440 KB text: texts that large are
// allocated in the process's old generation and only a full collection frees them).

/**
 * A page of `size` of the account's shipments, unfiltered. $2 offset: a row per shipment in the
 * page's order, [total, id, shipment, its containers (with them, else null)]; an empty page is one
 * row [total, null, null, null]. The total is the account's maintained count (migrations/0036),
 * not a count of its rows.
 */
export function shipmentPage(sort: TimeSort, withContainers: boolean, size: number): Statement {
  const dir = sort.desc ? 'desc' : 'asc';
  return variant(`shipments:${sort.column}:${dir}:${withContainers}:${pageSize(size)}`, () =>
    statement(
      `shipments_${sort.column}_${dir}_${size}${withContainers ? '_containers' : ''}`,
      `with page as (${pageIds('shipments', 's', sort, size, 'shipments')})
      select t.total, r.id, r.shipment, r.containers
      from (select coalesce((select sum(shipments)::int from account_shipment_counts where account_id = $1), 0) as total) t
      left join lateral (
        select s.id, s.${sort.column} as k, ${SHIPMENT} as shipment,
          ${withContainers ? `coalesce((${CONTAINERS_OF_S}), '')` : 'null::text'} as containers
        from page p join shipments s on s.id = p.id left join vessels v on v.id = s.pod_vessel_id) r on true
      order by r.k ${dir}, r.id ${dir}`,
    ),
  );
}

/**
 * The ids of the page at offset $2 ($1 the account) of `size` rows of `table` (alias `t`) in
 * `sort`'s order, for a `with page as (…)`; the rows come in no particular order. `total` is the
 * account's maintained count of those rows (migrations/0036, 0049; the sum of its slots, 0060). A page in the back half of the
 * list is read from the other end of the index, in the opposite order: an `OFFSET` skips its
 * entries one by one, so the deepest page skipped every row of the account and now skips at most
 * half (100,000 shipments: 20.8 → 8.3 ms a random page; docs/benchmarks.md). The count and the rows
 * are read in the statement's one snapshot, so the two ends agree; the opposite order is the exact
 * reverse, ids breaking ties. One branch runs: each one's condition names no column, so PostgreSQL
 * tests it once, before the scan. The outer `limit` is for the planner: with only the computed
 * one it expected a tenth of the table and joined the page's shipments by hash.
 */
export function pageIds(table: string, t: string, sort: TimeSort, size: number, total: string): string {
  const order = (desc: boolean) => {
    const dir = desc ? 'desc' : 'asc';
    return `${t}.${sort.column} ${dir}, ${t}.id ${dir}`;
  };
  const n = pageSize(size);
  const count = `coalesce((select sum(${total})::int from account_shipment_counts where account_id = $1), 0)`;
  return `(select ${t}.id from ${table} ${t} where ${t}.account_id = $1 and $2 * 2 < ${count}
      order by ${order(sort.desc)} limit ${n} offset $2)
    union all
    (select id from (select ${t}.id from ${table} ${t} where ${t}.account_id = $1 and $2 * 2 >= ${count}
      order by ${order(!sort.desc)} limit greatest(0, least(${n}, ${count} - $2))
      offset greatest(0, ${count} - $2 - ${n})) back limit ${n})`;
}

/** A page size as written into a statement: the HTTP layer's 1-100, never anything else. */
export function pageSize(size: number): number {
  if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE_SIZE) throw new Error(`page size ${size}`);
  return size;
}

/**
 * A page of `size` of the account's containers, unfiltered, without includes. $2 offset: a row per
 * container in the page's order, [total, container]; an empty page is one row [total, null]. The
 * total is the account's maintained count (migrations/0036). A row per container, as the shipment
 * list's: one ~133 KB text took the API 3-5 ms to take in (decoded at once, allocated outside the
 * young generation).
 */
export function containerPage(sort: TimeSort, size: number): Statement {
  const dir = sort.desc ? 'desc' : 'asc';
  return variant(`containers:${sort.column}:${dir}:${pageSize(size)}`, () =>
    statement(
      `containers_${sort.column}_${dir}_${size}`,
      `with page as (${pageIds('containers', 'c', sort, size, 'containers')})
      select t.total, r.container
      from (select coalesce((select sum(containers)::int from account_shipment_counts where account_id = $1), 0) as total) t
      left join lateral (
        select c.id, c.${sort.column} as k, ${CONTAINER} as container
        from page p join containers c on c.id = p.id join shipments s on s.id = c.shipment_id) r on true
      order by r.k ${dir}, r.id ${dir}`,
    ),
  );
}
