import { type RawBuilder, sql } from 'kysely';
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
  // Keyset (Page.after): the caller's query has the `afterRow` condition; no offset, no count.
  if (page.after !== undefined) return { rows: await rows.limit(page.size).offset(0).execute(), total: -1 };
  const [items, c] = await Promise.all([
    rows.limit(page.size).offset(pageOffset(page)).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { rows: items, total: Number(c.n) };
}

/**
 * The condition of Page.after for a list ordered by (`column`, id), both `desc` or both not: the
 * rows after the row `after` of `table`. The row's own values are read by the database, so the
 * comparison keeps the timestamps' microseconds (a JavaScript Date would cut them to milliseconds
 * and skip or repeat rows created in the same millisecond).
 */
export function afterRow(
  table: 'shipments' | 'containers' | 'tracking_requests',
  alias: string | null,
  column: 'created_at' | 'updated_at',
  desc: boolean,
  after: string,
): RawBuilder<boolean> {
  const ref = (c: string) => sql.ref(alias ? `${alias}.${c}` : c);
  const op = sql.raw(desc ? '<' : '>');
  return sql<boolean>`(${ref(column)}, ${ref('id')}) ${op} (select k.${sql.ref(column)}, k.id from ${sql.table(table)} k where k.id = ${after})`;
}
