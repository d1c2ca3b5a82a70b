import type { Database, Statement } from '../db/database.ts';
import { pageLinks } from '../jsonapi/document.ts';
import {
  ident,
  lit,
  num,
  obj,
  raw,
  sqlOf,
  statement,
  time,
  val,
} from '../shipments/sql-documents/json-text.ts';
import type { TimeSort } from '../shipments/time-sort.ts';
import { type Page, pageOffset } from '../util/page.ts';

// The unfiltered list of tracking requests as one prepared statement answering JSON text (the
// shipments' database path, src/shipments/sql-documents/, explains the approach). Member for member
// what serializeTrackingRequest writes, in the response schema's order; test/api/sql-documents.test.ts
// compares both. The total is the account's count kept by migrations/0049's triggers.

const NEXT_ATTEMPT = `case when tr.status in ('pending', 'awaiting_manifest') then tr.next_attempt_at end`;

const TRACKING_REQUEST = sqlOf(
  obj([
    ['id', val('tr.id::text')],
    ['type', lit('"tracking_request"')],
    [
      'attributes',
      obj([
        ['request_number', val('tr.request_number')],
        ['request_type', val('tr.request_type')],
        ['scac', val('tr.scac')],
        ['ref_numbers', val('tr.ref_numbers')],
        ['tags', val('tr.shipment_tags')],
        ['shipment_tags', val('tr.shipment_tags')],
        ['status', val('tr.status')],
        ['failed_reason', val('tr.failed_reason')],
        ['is_retrying', val('tr.is_retrying')],
        ['retry_count', num('tr.retry_count')],
        ['next_attempt_at', time(NEXT_ATTEMPT)],
        ['created_at', time('tr.created_at')],
        ['updated_at', time('tr.updated_at')],
      ]),
    ],
    ['links', [...lit('{"self":"/v2/tracking_requests/'), ...raw('tr.id::text'), ...lit('"}')]],
    [
      'relationships',
      obj([
        ['tracked_object', obj([['data', ident('shipment', 'tr.shipment_id', 'data')]])],
        ['customer', obj([['data', ident('party', 'tr.customer_id', 'data')]])],
      ]),
    ],
  ]),
);

const pages = new Map<string, Statement>();

/**
 * $1 the account, $2 limit, $3 offset: [tracking requests, total]. (No reference markers here.)
 * The page is chosen by id alone, so the rows it skips are index entries (index-only, as the
 * shipment list's): selecting whole rows there read every skipped row from the table.
 */
function trackingRequestPage(sort: TimeSort): Statement {
  const key = `${sort.column}:${sort.desc}`;
  let st = pages.get(key);
  if (!st) {
    const dir = sort.desc ? 'desc' : 'asc';
    const order = `tr.${sort.column} ${dir}, tr.id ${dir}`;
    st = statement(
      `tracking_requests_${sort.column}_${dir}`,
      `with page as (select tr.id from tracking_requests tr where tr.account_id = $1
        order by ${order} limit $2 offset $3)
      select (select string_agg(${TRACKING_REQUEST}, ',' order by ${order})
          from page p join tracking_requests tr on tr.id = p.id),
        coalesce((select tracking_requests from account_shipment_counts where account_id = $1), 0)`,
    );
    pages.set(key, st);
  }
  return st;
}

/** GET /tracking_requests, unfiltered, without includes. */
export async function trackingRequestPageText(
  db: Database,
  accountId: string,
  sort: TimeSort,
  page: Page,
  links: { baseUrl: string; qs: Record<string, string | undefined> },
): Promise<string> {
  const r = await db.queryRow(trackingRequestPage(sort), [accountId, page.size, pageOffset(page)]);
  const [data, total] = r as [string | null, number];
  const l = pageLinks(links.baseUrl, '/tracking_requests', links.qs, page, total);
  return `{"data":[${data ?? ''}],"links":${JSON.stringify(l)},"meta":${JSON.stringify({ size: page.size, total })}}`;
}
