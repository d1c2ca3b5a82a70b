import { sql } from 'kysely';
import { type Page, pageOffset } from '../util/page.ts';

interface Limitable<R> {
  limit(n: number): { offset(n: number): { execute(): Promise<R[]> } };
}

/** The selection a list's count query makes: `q.select(total)`. */
export const total = sql<number>`count(*)::int`.as('n');

/**
 * One page of an ordered list and the total of the filtered list, queried side by side.
 * `rows` is the filtered query with its columns and order; `count` the same filters selecting `total`.
 */
export async function paged<R>(
  rows: Limitable<R>,
  count: { executeTakeFirstOrThrow(): Promise<{ n: number }> },
  page: Page,
): Promise<{ rows: R[]; total: number }> {
  const [items, c] = await Promise.all([
    rows.limit(page.size).offset(pageOffset(page)).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(c.n) };
}
