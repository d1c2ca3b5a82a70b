import { readdirSync, readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { Database } from './database.ts';

const MIGRATIONS = new URL('../../migrations/', import.meta.url);
const LOCK = 726354;
/** Raised by a migration's script when, holding the lock, it finds its version recorded. */
const ALREADY_APPLIED = 'TRK01';

export function migrationFiles(dir: URL = MIGRATIONS): string[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort();
}

// Forward-only, numbered, plain SQL files. Each runs once, in its own transaction, under a
// transaction-level advisory lock so several processes starting together cannot interleave.
// Whether a version is applied is decided inside that lock: a process that read "pending" and
// then waited on the lock while another applied it must not run the body again (a body that is
// not idempotent, a data migration, would do its work twice before the insert failed). The
// check stops the script before the body; the read before the loop only spares a process that
// is up to date from taking the lock once per file.
// `dir` is for tests: another set of files (the product's are in migrations/).
export async function migrate(database: Database, dir: URL = MIGRATIONS): Promise<string[]> {
  // Under the lock too: two processes creating the table at once on an empty database collide
  // in the catalogue ("duplicate key ... pg_type_typname_nsp_index") despite `if not exists`.
  await database.exec(`begin;
select pg_advisory_xact_lock(${LOCK});
create table if not exists schema_migrations (
  version text primary key, applied_at timestamptz not null default now());
commit;`);
  const applied = await appliedVersions(database);
  const appliedNow: string[] = [];
  for (const file of migrationFiles(dir)) {
    if (applied.has(file)) continue;
    const body = readFileSync(new URL(file, dir), 'utf8');
    const script = `begin;
select pg_advisory_xact_lock(${LOCK});
do $check$ begin
  if exists (select from schema_migrations where version = '${file}') then
    raise exception 'migration % is applied', '${file}' using errcode = '${ALREADY_APPLIED}';
  end if;
end $check$;
${body}
insert into schema_migrations (version) values ('${file}');
commit;`;
    try {
      await database.exec(script);
      appliedNow.push(file);
    } catch (err) {
      if ((err as { code?: string }).code === ALREADY_APPLIED) continue; // another process applied it
      throw new Error(`migration ${file} failed: ${(err as Error).message}`);
    }
  }
  return appliedNow;
}

async function appliedVersions(database: Database): Promise<Set<string>> {
  const rows = await sql<{ version: string }>`select version from schema_migrations`.execute(database.db);
  return new Set(rows.rows.map((r) => r.version));
}
