import { parse } from 'csv-parse/sync';
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { ApiError, catalogueError, type ErrorObject } from '../errors.ts';
import { checkContainerNumber } from '../util/iso6346.ts';
import type { TrackingRequest } from './queries.ts';
import { createTrackingRequest, type TrackingRequestInsert } from './service.ts';
import { normalizeNumber } from './validate.ts';

// A spreadsheet of numbers made into tracking requests (POST /v2/tracking_requests/import). Each
// row goes through what POST /v2/tracking_requests does (its schema, then the business rules),
// so a row's errors are the ones a single create would answer; a bad row never blocks the others.

/** The columns an import may have; only request_number is required. */
export const IMPORT_COLUMNS = ['request_number', 'scac', 'request_type', 'ref_numbers', 'tags'] as const;
type Column = (typeof IMPORT_COLUMNS)[number];

/** Rows created at once: enough to fill the batched insert, few enough to keep others served. */
const CONCURRENCY = 8;

export interface ImportRow {
  /** The row's line in the file (the header is line 1), as a spreadsheet shows it. */
  line: number;
  cells: Partial<Record<Column, string>>;
}

export type RowResult =
  | { line: number; created: TrackingRequest }
  | { line: number; errors: Array<Omit<ErrorObject, 'status'> & { status: string }> };

/** The CSV's rows, or a 400 naming the line that cannot be read, or a 413 over `maxRows`. */
export function parseImport(text: string, maxRows: number): ImportRow[] {
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parse(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      trim: true,
      info: true,
    });
  } catch (err) {
    throw catalogueError('malformed_csv', `The CSV cannot be read: ${(err as Error).message}`);
  }
  const header = Object.keys(records[0]?.record ?? {});
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const names = header.length ? header : firstLine.split(',').map((h) => h.trim().toLowerCase());
  const unknown = names.filter((h) => !(IMPORT_COLUMNS as readonly string[]).includes(h));
  if (unknown.length > 0)
    throw catalogueError(
      'malformed_csv',
      `Unknown column ${unknown.map((u) => `"${u}"`).join(', ')}; the columns are ${IMPORT_COLUMNS.join(', ')}.`,
    );
  if (!names.includes('request_number'))
    throw catalogueError('malformed_csv', 'The header row (line 1) must name a request_number column.');
  if (records.length > maxRows)
    throw catalogueError(
      'too_many_rows',
      `The CSV holds ${records.length} rows; one import takes at most ${maxRows}.`,
    );
  return records.map(({ record, info }) => ({ line: info.lines, cells: record }));
}

const list = (cell: string | undefined): string[] | undefined =>
  cell
    ? cell
        .split(/[;|]/)
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/**
 * The create body of a row. A missing request_type is a container number when the number passes
 * ISO 6346, else a bill of lading; a missing SCAC leaves the carrier to the engine's detection.
 */
export function rowAttributes(cells: ImportRow['cells']): Record<string, unknown> {
  const number = cells.request_number ?? '';
  const attrs: Record<string, unknown> = {
    request_type:
      cells.request_type ||
      (checkContainerNumber(normalizeNumber(number)).ok ? 'container' : 'bill_of_lading'),
    request_number: number,
  };
  if (cells.scac) attrs.scac = cells.scac;
  else attrs.auto_detect_vocc_scac = true;
  const refs = list(cells.ref_numbers);
  if (refs) attrs.ref_numbers = refs;
  const tags = list(cells.tags);
  if (tags) attrs.shipment_tags = tags;
  return attrs;
}

async function importRow(
  db: Kysely<DB>,
  insert: TrackingRequestInsert,
  accountId: string,
  row: ImportRow,
  checkBody: (body: unknown) => void,
): Promise<RowResult> {
  const body = { data: { type: 'tracking_request', attributes: rowAttributes(row.cells) } };
  try {
    checkBody(body);
    const created = await createTrackingRequest(
      db,
      insert,
      accountId,
      body.data.attributes as Parameters<typeof createTrackingRequest>[3],
    );
    return { line: row.line, created };
  } catch (err) {
    if (err instanceof ApiError && err.status < 500) return { line: row.line, errors: err.errors };
    throw err;
  }
}

/**
 * Creates the rows' tracking requests; one result per row, in the file's order. `checkBody` is
 * the create route's schema check (the HTTP edge's), throwing its ApiError.
 */
export async function importRows(
  db: Kysely<DB>,
  insert: TrackingRequestInsert,
  accountId: string,
  rows: ImportRow[],
  checkBody: (body: unknown) => void,
): Promise<RowResult[]> {
  const results = new Array<RowResult>(rows.length);
  let next = 0;
  const work = async () => {
    while (next < rows.length) {
      const i = next++;
      results[i] = await importRow(db, insert, accountId, rows[i]!, checkBody);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, rows.length) }, work));
  return results;
}
