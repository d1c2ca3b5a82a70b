import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.ts';

export type Bucket = 'create' | 'default' | 'infer' | 'refresh';

/**
 * Takes one request from an account's bucket on a rolling window, atomically across every
 * process sharing the database (see rate_limit_take in migrations/0001). Returns the requests
 * left, or minus the seconds to wait.
 */
export async function takeRateLimit(
  db: Kysely<DB>,
  accountId: string,
  bucket: Bucket,
  limit: number,
  windowSeconds: number,
): Promise<number> {
  const r = await sql<{
    left: number;
  }>`select rate_limit_take(${accountId}::uuid, ${bucket}, ${limit}::integer, ${windowSeconds}::integer) as left`.execute(
    db,
  );
  return Number(r.rows[0]!.left);
}
