import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

// Search SQL. Candidates come from one small branch per indexed field (an equality on the
// number's b-tree, or an ILIKE on a trigram GIN index: migrations/0033), each capped, so a
// common term costs a bounded amount; the caller ranks the union.

export const PER_BRANCH = 100;
export const PER_TYPE = 25;

export interface ShipmentHit {
  id: string;
  number: string;
  normalized_number: string;
  scac: string;
  port_of_lading_locode: string | null;
  port_of_discharge_locode: string | null;
  containers_count: number;
  line_tracking_stopped_at: Date | null;
  line_tracking_stopped_reason: string | null;
  ref_numbers: string[];
  created_at: Date;
  updated_at: Date;
}
export interface ContainerHit {
  id: string;
  number: string;
  shipment_id: string;
  scac: string;
  ref_numbers: string[];
  created_at: Date;
  updated_at: Date;
}
export interface RequestHit {
  id: string;
  number: string;
  scac: string;
  status: string;
  failed_reason: string | null;
  ref_numbers: string[];
  created_at: Date;
  updated_at: Date;
}

const branch = (q: RawBuilder<unknown>) => sql`(${q} limit ${PER_BRANCH})`;

/**
 * `expr ILIKE %term%`, served by the expression's trigram index. When the term has a run of
 * digits, the index is asked for the digits only and the whole term is checked on the rows it
 * gives (`expr || ''` is not the indexed expression, so it stays a filter): the letters of a
 * number are its owner or carrier prefix, shared by most rows of an account, and their trigrams'
 * long posting lists cost most of the scan (1M containers: 16 ms -> 0.4 ms; docs/benchmarks.md).
 */
function like(expr: RawBuilder<unknown>, t: Term) {
  // No trigram index can serve a term of 1 or 2 characters: it would be a scan of the account's
  // rows (seconds at a million). Such a term matches whole numbers only (the equality branches).
  if (t.indexPattern === null) return sql`false`;
  if (t.indexPattern === t.pattern) return sql`${expr} ilike ${t.pattern}`;
  return sql`${expr} ilike ${t.indexPattern} and (${expr} || '') ilike ${t.pattern}`;
}

/** Each entity type's values have their own partial trigram index (migrations/0042): a literal. */
function valueBranch(accountId: string, type: 'shipment' | 'container' | 'tracking_request', t: Term) {
  return branch(sql`select entity_id as id from custom_field_values
    where account_id = ${accountId} and entity_type = ${sql.lit(type)} and ${like(sql`(value #>> '{}')`, t)}`);
}

/** `exact`: the term as numbers are stored; `pattern`: %term% with LIKE wildcards escaped. */
export interface Term {
  exact: string;
  pattern: string;
  prefix: string;
  /**
   * What the trigram index is asked for: %longest digit run% when it has 3 or more, else `pattern`;
   * null when the term is shorter than a trigram (no partial matching then).
   */
  indexPattern: string | null;
}

/** The `hits` CTE of a table found by one number column, its ref_numbers and its custom field values. */
function numberHits(
  table: 'containers' | 'tracking_requests',
  column: 'number' | 'request_number',
  type: 'container' | 'tracking_request',
  a: string,
  t: Term,
) {
  const from = sql`select id from ${sql.table(table)} where account_id = ${a}`;
  const col = sql.ref(column);
  return sql`with hits as (
      ${from} and ${col} = ${t.exact}
      union all ${branch(sql`${from} and ${like(col, t)}`)}
      union all ${branch(sql`${from} and ${like(sql`search_text(ref_numbers)`, t)}`)}
      union all ${valueBranch(a, type, t)}
    )`;
}

export async function searchShipments(db: Kysely<DB>, accountId: string, t: Term): Promise<ShipmentHit[]> {
  const a = accountId;
  const r = await sql<ShipmentHit>`
    with hits as (
      select id from shipments where account_id = ${a} and (bill_of_lading_number = ${t.exact} or normalized_number = ${t.exact})
      union all ${branch(sql`select id from shipments where account_id = ${a} and ${like(sql`bill_of_lading_number`, t)}`)}
      union all ${branch(sql`select id from shipments where account_id = ${a} and ${like(sql`normalized_number`, t)}`)}
      union all ${branch(sql`select id from shipments where account_id = ${a} and ${like(sql`search_text(ref_numbers)`, t)}`)}
      union all ${branch(sql`select id from shipments where account_id = ${a} and ${like(sql`search_text(tags)`, t)}`)}
      union all ${valueBranch(a, 'shipment', t)}
    )
    select s.id, s.bill_of_lading_number as number, s.normalized_number, s.scac, s.port_of_lading_locode,
           s.port_of_discharge_locode, s.line_tracking_stopped_at, s.line_tracking_stopped_reason, s.ref_numbers,
           s.created_at, s.updated_at,
           (select count(*)::int from containers c where c.shipment_id = s.id) as containers_count
      from shipments s
     where s.account_id = ${a} and s.id in (select id from hits)
     order by (s.bill_of_lading_number = ${t.exact} or s.normalized_number = ${t.exact}) desc,
              (s.bill_of_lading_number ilike ${t.prefix} or s.normalized_number ilike ${t.prefix}) desc,
              s.updated_at desc, s.id
     limit ${PER_TYPE}`.execute(db);
  return r.rows;
}

export async function searchContainers(db: Kysely<DB>, accountId: string, t: Term): Promise<ContainerHit[]> {
  const a = accountId;
  const r = await sql<ContainerHit>`
    ${numberHits('containers', 'number', 'container', a, t)}
    select c.id, c.number, c.shipment_id, s.scac, c.ref_numbers, c.created_at, c.updated_at
      from containers c join shipments s on s.id = c.shipment_id
     where c.account_id = ${a} and c.id in (select id from hits)
     order by (c.number = ${t.exact}) desc, (c.number ilike ${t.prefix}) desc, c.updated_at desc, c.id
     limit ${PER_TYPE}`.execute(db);
  return r.rows;
}

/** Requests that have no shipment yet: one that has is found as its shipment instead. */
export async function searchRequests(db: Kysely<DB>, accountId: string, t: Term): Promise<RequestHit[]> {
  const a = accountId;
  const r = await sql<RequestHit>`
    ${numberHits('tracking_requests', 'request_number', 'tracking_request', a, t)}
    select r.id, r.request_number as number, r.scac, r.status, r.failed_reason, r.ref_numbers, r.created_at,
           r.updated_at
      from tracking_requests r
     where r.account_id = ${a} and r.shipment_id is null and r.id in (select id from hits)
       and not exists (select 1 from shipments s where s.account_id = ${a} and s.bill_of_lading_number = r.request_number)
       and not exists (select 1 from shipments s where s.account_id = ${a} and s.normalized_number = r.request_number)
     order by (r.request_number = ${t.exact}) desc, (r.request_number ilike ${t.prefix}) desc, r.updated_at desc, r.id
     limit ${PER_TYPE}`.execute(db);
  return r.rows;
}
