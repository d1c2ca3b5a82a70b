// Paging arithmetic shared by storage (LIMIT/OFFSET) and JSON:API links. Parsing page[number] and
// page[size] out of a request is the HTTP layer's (src/http/jsonapi.ts).

export interface Page {
  /** From 1. */
  number: number;
  size: number;
  /**
   * Keyset paging (whole-list exports, src/http/csv.ts): the `size` rows after the row of this id
   * in the list's order, `number` ignored and no total counted. Each page then costs the same
   * however deep it is, where OFFSET reads every row before the page (and a count each page).
   * null: the first page of a keyset read (uncounted too).
   */
  after?: string | null;
}

export const DEFAULT_PAGE_SIZE = 30;
export const MAX_PAGE_SIZE = 100;

/** Rows to skip before `page`. */
export const pageOffset = (page: Page): number => (page.number - 1) * page.size;

/** The last page number of a list of `total` rows (1 for an empty list). */
export const lastPageNumber = (page: Page, total: number): number =>
  Math.max(1, Math.ceil(total / page.size));
