import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { type Database, openPostgres } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';

// The run's own PostgreSQL database (bench_<random>), migrated, dropped at the end.

export interface BenchDatabase {
  name: string;
  url: string;
  database: Database;
  serverVersion: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  const database = await openPostgres(url, 4);
  await migrate(database);
  const v = await sql<{ v: string }>`select current_setting('server_version') as v`.execute(database.db);
  let dropped = false;
  return {
    name,
    url,
    database,
    serverVersion: `PostgreSQL ${v.rows[0]!.v}`,
    async drop() {
      if (dropped) return;
      dropped = true;
      await database.close().catch(() => {});
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
