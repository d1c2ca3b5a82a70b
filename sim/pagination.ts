// Opaque page cursors in the style of DCSA-Event-Core (base64url of "page=N&size=M&..."). A
// cursor also freezes the simulated instant of the first page, so the pages of one walk agree
// even while the simulated clock runs, and carries the original filters for clients that send
// the cursor alone.

export interface PageState {
  page: number;
  size: number;
  atMs: number;
  /** The original query (filters, sort; never the cursor). */
  query: string;
}

export function encodeCursor(s: PageState): string {
  const body = new URLSearchParams({
    page: String(s.page),
    size: String(s.size),
    at: String(s.atMs),
    q: s.query,
  });
  return Buffer.from(body.toString()).toString('base64url');
}

export function decodeCursor(cursor: string): PageState | undefined {
  if (!/^[A-Za-z0-9_-]+={0,2}$/.test(cursor)) return undefined;
  const body = new URLSearchParams(Buffer.from(cursor, 'base64url').toString());
  const page = Number(body.get('page'));
  const size = Number(body.get('size'));
  const atMs = Number(body.get('at'));
  const query = body.get('q');
  if (!Number.isInteger(page) || page < 0 || !Number.isInteger(size) || size < 1 || !Number.isFinite(atMs)) {
    return undefined;
  }
  if (query === null) return undefined;
  return { page, size, atMs, query };
}
