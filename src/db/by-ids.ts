import type { Kysely } from 'kysely';
import type { DB } from './schema.ts';

/** A query for those of an account's rows that match a list of ids. */
export type ByIds<R> = (db: Kysely<DB>, accountId: string, ids: string[]) => Promise<R[]>;

/**
 * Wraps a query by ids (for includes and webhook bodies) so that an empty list asks the database
 * nothing and a repeated id is asked once; `query` gets a non-empty list of distinct ids.
 */
export function byIds<R>(query: ByIds<R>): ByIds<R> {
  return async (db, accountId, ids) => (ids.length === 0 ? [] : query(db, accountId, [...new Set(ids)]));
}
