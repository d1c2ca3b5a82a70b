import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, type Engine, openPglite, openPostgres } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';

/** Every storage-touching test runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set. */
export const ENGINES: Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export interface TestDatabase extends Database {
  /** postgres:// URL of this database (PostgreSQL only), for child processes. */
  url: string | null;
  /** Drops the database (PostgreSQL) after closing. */
  destroy(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** An empty PostgreSQL database of its own (not migrated), on TEST_DATABASE_URL's server. */
export async function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const admin = process.env.TEST_DATABASE_URL!;
  const name = `t_${randomBytes(6).toString('hex')}`;
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await run(`create database ${name}`);
  return { url: withDatabase(admin, name), drop: () => run(`drop database if exists ${name} with (force)`) };
}

/** A fresh, migrated database of its own for a test file or test. */
export async function createTestDatabase(
  engine: Engine,
  opts: { poolSize?: number } = {},
): Promise<TestDatabase> {
  if (engine === 'pglite') {
    const database = await openPglite(null);
    await migrate(database);
    return { ...database, url: null, destroy: () => database.close() };
  }
  const { url, drop } = await createEmptyPostgresDatabase();
  const database = await openPostgres(url, opts.poolSize ?? 10);
  await migrate(database);
  let closed = false;
  return {
    ...database,
    url,
    async close() {
      if (!closed) {
        closed = true;
        await database.close();
      }
    },
    async destroy() {
      if (!closed) {
        closed = true;
        await database.close();
      }
      await drop();
    },
  };
}
