import type { Kysely } from 'kysely';
import { isUuid } from '../util/uuid.ts';
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

/** A query for one of an account's rows by its id. */
export type ById<R> = (db: Kysely<DB>, accountId: string, id: string) => Promise<R | undefined>;

/**
 * Wraps a query for one row by id so that an id that is no UUID matches nothing without asking the
 * database (which would refuse the cast): callers can pass a path parameter as it came.
 */
export function byId<R>(query: ById<R>): ById<R> {
  return async (db, accountId, id) => (isUuid(id) ? query(db, accountId, id) : undefined);
}
