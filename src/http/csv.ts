import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type FlatColumn, flatRow } from '../jsonapi/flat.ts';
import type { Resource } from '../jsonapi/resource.ts';
import type { Page } from '../util/page.ts';

// Lists as CSV (`Accept: text/csv` on a list endpoint): every page of the list with the filters and
// sort in force, written out page by page as it is read, so an account of 100,000 shipments is
// exported without holding them in memory. page[...] parameters are ignored: an export is whole.
// A row changed while the export runs so that it moves in the order (sort=updated_at) may be
// skipped or sent twice, as when paging through the JSON:API list.

/** Rows read per query while exporting. */
export const EXPORT_PAGE_SIZE = 500;

/** Whether the client asked for CSV rather than JSON:API. */
export function wantsCsv(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return accept !== undefined && /(^|,)\s*text\/csv\b/i.test(accept);
}

// Spreadsheet programs run a cell that starts with = + - @ as a formula; text from carriers and
// users must never do that (OWASP "CSV injection"), so such a cell gets a leading apostrophe.
// Negative numbers and ISO times are left alone.
const FORMULA = /^(?:[=+@\t\r]|-(?!\d))/;
const safe = (v: string): string => (FORMULA.test(v) ? `'${v}` : v);

async function* csvChunks(
  columns: readonly FlatColumn[],
  pageOf: (page: Page) => Promise<Resource[]>,
): AsyncGenerator<string> {
  yield stringify([columns.map((c) => c.header)]);
  // Keyset pages (Page.after: the rows after the last one sent), not page numbers: an OFFSET
  // reads every row before its page, so 100,000 rows read by page number cost 200 counts and
  // ~10 million row visits; after the last id each page costs the same.
  let after: string | null = null;
  for (;;) {
    const rows = await pageOf({ number: 1, size: EXPORT_PAGE_SIZE, after });
    if (rows.length > 0) yield stringify(rows.map((r) => flatRow(columns, r).map(safe)));
    if (rows.length < EXPORT_PAGE_SIZE) return;
    after = rows.at(-1)!.id;
  }
}

/** Streams the whole list as `<name>.csv`. */
export function sendCsv(
  reply: FastifyReply,
  name: string,
  columns: readonly FlatColumn[],
  pageOf: (page: Page) => Promise<Resource[]>,
): FastifyReply {
  return (
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}.csv"`)
      .header('cache-control', 'no-store')
      // One page read ahead at most (Readable.from's default, said here because memory depends on
      // it): the next page is read only when the client has taken the one before
      // (test/api/export-streaming.test.ts fails when the server reads further ahead).
      .send(Readable.from(csvChunks(columns, pageOf), { highWaterMark: 1 }))
  );
}
