import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from './database.ts';

const dir = new URL('../../migrations/', import.meta.url);

export function migrationFiles(): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
}

// Forward-only, numbered, plain SQL files. Each runs once, in its own transaction, under a
// transaction-level advisory lock so several processes starting together cannot interleave;
// a process that loses the race sees the version recorded and moves on.
export async function migrate(database: Database): Promise<string[]> {
  // Under the lock too: two processes creating the table at once on an empty database collide
  // in the catalogue ("duplicate key ... pg_type_typname_nsp_index") despite `if not exists`.
  await database.exec(`begin;
select pg_advisory_xact_lock(726354);
create table if not exists schema_migrations (
  version text primary key, applied_at timestamptz not null default now());
commit;`);
  const appliedNow: string[] = [];
  for (const file of migrationFiles()) {
    if ((await appliedVersions(database)).has(file)) continue;
    const body = readFileSync(new URL(file, dir), 'utf8');
    const script = `begin;
select pg_advisory_xact_lock(726354);
${body}
insert into schema_migrations (version) values ('${file}');
commit;`;
    try {
      await database.exec(script);
      appliedNow.push(file);
    } catch (err) {
      if ((await appliedVersions(database)).has(file)) continue; // another process applied it
      throw new Error(`migration ${file} failed: ${(err as Error).message}`);
    }
  }
  return appliedNow;
}

async function appliedVersions(database: Database): Promise<Set<string>> {
  const rows = await sql<{ version: string }>`select version from schema_migrations`.execute(database.db);
  return new Set(rows.rows.map((r) => r.version));
}
