import type { Database, Statement } from '../db/database.ts';
import { pageLinks } from '../jsonapi/resource.ts';
import { sqlOf, statement } from '../members/json-text.ts';
import { resourceJson } from '../members/kit.ts';
import { pageIds, pageSize } from '../shipments/sql-bodies/queries.ts';
import { shipmentJson } from '../shipments/sql-bodies/resources.ts';
import { encoded, tail } from '../shipments/sql-bodies/service.ts';
import type { TimeSort } from '../shipments/time-sort.ts';
import { type Page, pageOffset } from '../util/page.ts';
import { TRACKING_REQUEST } from './members.ts';

// The unfiltered list of tracking requests, with or without their shipments included, as one
// prepared statement answering JSON text (the shipments' database path, src/shipments/sql-bodies/,
// explains the approach), made of the same declarations as the serializers (./members.ts);
// test/api/sql-bodies.test.ts compares both.
// The total is the account's count kept by migrations/0049's triggers.

const TRACKING_REQUEST_JSON = sqlOf(resourceJson(TRACKING_REQUEST, 'data', 'tr', true));

/** A shipment in `included`, as the JavaScript path includes it (`s` the row, `v` its POD vessel). */
const INCLUDED_SHIPMENT = sqlOf(shipmentJson('included'));

const pages = new Map<string, Statement>();

/**
 * $1 the account, $2 offset: [tracking requests, total, with `withShipments` their shipments (else
 * null)]. (The tracking requests hold no reference markers; their shipments do.) The page is chosen
 * by id alone, so the rows it skips are index entries (index-only, as the shipment list's):
 * selecting whole rows there read every skipped row from the table. Its size is written into the
 * text, as the shipment list's is (queries.ts says why). The shipments come in the order the page
 * first names them, once each, as shipmentIncludes orders them.
 */
function trackingRequestPage(sort: TimeSort, withShipments: boolean, size: number): Statement {
  const key = `${sort.column}:${sort.desc}:${withShipments}:${pageSize(size)}`;
  let st = pages.get(key);
  if (!st) {
    const dir = sort.desc ? 'desc' : 'asc';
    const order = `tr.${sort.column} ${dir}, tr.id ${dir}`;
    const shipments = `(select string_agg(${INCLUDED_SHIPMENT}, ',' order by f.n)
        from (select shipment_id, min(n) as n from picked where shipment_id is not null group by shipment_id) f
        join shipments s on s.id = f.shipment_id and s.account_id = $1
        left join vessels v on v.id = s.pod_vessel_id)`;
    st = statement(
      `tracking_requests_${sort.column}_${dir}_${size}${withShipments ? '_shipments' : ''}`,
      `with page as (${pageIds('tracking_requests', 'tr', sort, size, 'tracking_requests')}),
      picked as (select tr.*, row_number() over (order by ${order}) as n
        from page p join tracking_requests tr on tr.id = p.id)
      select (select string_agg(${TRACKING_REQUEST_JSON}, ',' order by tr.n) from picked tr),
        coalesce((select sum(tracking_requests)::int from account_shipment_counts where account_id = $1), 0),
        ${withShipments ? shipments : 'null::text'}`,
    );
    pages.set(key, st);
  }
  return st;
}

/** GET /tracking_requests, unfiltered, with its shipments included or nothing included. */
export async function trackingRequestPageText(
  db: Database,
  accountId: string,
  sort: TimeSort,
  page: Page,
  withShipments: boolean,
  links: { baseUrl: string; qs: Record<string, string | undefined> },
): Promise<Buffer> {
  const r = await db.queryRow(trackingRequestPage(sort, withShipments, page.size), [
    accountId,
    pageOffset(page),
  ]);
  const [data, total, shipments] = r as [string | null, number, string | null];
  const l = pageLinks(links.baseUrl, '/tracking_requests', links.qs, page, total);
  return encoded([
    '{"data":[',
    data ?? '',
    `],${tail(l, page, total)}`,
    ...(withShipments ? [',"included":[', shipments ?? '', ']'] : []),
    '}',
  ]);
}
