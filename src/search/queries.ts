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

function valueBranch(accountId: string, type: string, pattern: string) {
  return branch(sql`select entity_id as id from custom_field_values
    where account_id = ${accountId} and entity_type = ${type} and (value #>> '{}') ilike ${pattern}`);
}

/** `exact`: the term as numbers are stored; `pattern`: %term% with LIKE wildcards escaped. */
export interface Term {
  exact: string;
  pattern: string;
  prefix: string;
}

/** The `hits` CTE of a table found by one number column, its ref_numbers and its custom field values. */
function numberHits(
  table: 'containers' | 'tracking_requests',
  column: 'number' | 'request_number',
  type: string,
  a: string,
  t: Term,
) {
  const from = sql`select id from ${sql.table(table)} where account_id = ${a}`;
  const col = sql.ref(column);
  return sql`with hits as (
      ${from} and ${col} = ${t.exact}
      union all ${branch(sql`${from} and ${col} ilike ${t.pattern}`)}
      union all ${branch(sql`${from} and search_text(ref_numbers) ilike ${t.pattern}`)}
      union all ${valueBranch(a, type, t.pattern)}
    )`;
}

export async function searchShipments(db: Kysely<DB>, accountId: string, t: Term): Promise<ShipmentHit[]> {
  const a = accountId;
  const r = await sql<ShipmentHit>`
    with hits as (
      select id from shipments where account_id = ${a} and (bill_of_lading_number = ${t.exact} or normalized_number = ${t.exact})
      union all ${branch(sql`select id from shipments where account_id = ${a} and bill_of_lading_number ilike ${t.pattern}`)}
      union all ${branch(sql`select id from shipments where account_id = ${a} and normalized_number ilike ${t.pattern}`)}
      union all ${branch(sql`select id from shipments where account_id = ${a} and search_text(ref_numbers) ilike ${t.pattern}`)}
      union all ${branch(sql`select id from shipments where account_id = ${a} and search_text(tags) ilike ${t.pattern}`)}
      union all ${valueBranch(a, 'shipment', t.pattern)}
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
       and not exists (select 1 from shipments s where s.account_id = ${a}
                        and (s.bill_of_lading_number = r.request_number or s.normalized_number = r.request_number))
     order by (r.request_number = ${t.exact}) desc, (r.request_number ilike ${t.prefix}) desc, r.updated_at desc, r.id
     limit ${PER_TYPE}`.execute(db);
  return r.rows;
}
