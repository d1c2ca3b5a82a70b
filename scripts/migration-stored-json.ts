import { readdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { openPglite } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { columnsRead, renderFunction, type StoredTable } from '../src/members/stored.ts';
import { STORED_TABLES } from '../src/shipments/sql-bodies/resources.ts';

// Writes the migration that brings the stored JSON pieces of the database up to the declarations
// (src/members/stored.ts): for each table whose trigger function or trigger columns differ from
// what a freshly migrated database holds, its new piece columns, the function, the trigger and an
// update that renders every row again. Forward-only, checked in like every migration;
// test/api/stored-json.test.ts fails until it exists. `--check` writes nothing and exits 1 when a
// migration is due.

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'migrations');

/** The SQL that installs `t`'s pieces (`newColumns`: piece columns the table does not have yet). */
export function installSql(t: StoredTable, newColumns: string[]): string {
  const out: string[] = [];
  if (newColumns.length)
    out.push(`alter table ${t.table} ${newColumns.map((c) => `add column ${c} text`).join(', ')};`);
  out.push(renderFunction(t));
  const cols = columnsRead(t).map((c) => (c === 'timestamp' ? '"timestamp"' : c));
  out.push(`drop trigger if exists ${t.table}_render_json on ${t.table};`);
  out.push(
    `create trigger ${t.table}_render_json before insert or update of ${cols.join(', ')} on ${t.table}\n  for each row execute function ${t.fn}();`,
  );
  out.push(`update ${t.table} set ${cols[0]} = ${cols[0]};`);
  return out.join('\n');
}

const database = await openPglite(null);
try {
  await migrate(database);
  const parts: string[] = [];
  for (const t of STORED_TABLES) {
    const fn = await sql<{ src: string }>`select prosrc as src from pg_proc where proname = ${t.fn}`.execute(
      database.db,
    );
    const cols = await sql<{ name: string }>`select a.attname as name from pg_trigger g
      join pg_attribute a on a.attrelid = g.tgrelid and a.attnum = any(g.tgattr::int2[])
      where g.tgname = ${`${t.table}_render_json`} order by a.attname`.execute(database.db);
    const body = /\$\$([\s\S]*)\$\$/.exec(renderFunction(t))![1];
    const same =
      fn.rows[0]?.src === body && JSON.stringify(cols.rows.map((r) => r.name)) === JSON.stringify(columnsRead(t));
    if (same) continue;
    const have = await sql<{ name: string }>`select column_name as name from information_schema.columns
      where table_name = ${t.table}`.execute(database.db);
    const existing = new Set(have.rows.map((r) => r.name));
    parts.push(installSql(t, t.pieces.map((p) => p.column).filter((c) => !existing.has(c))));
  }
  if (parts.length === 0) console.log('The stored pieces are up to date: no migration needed.');
  else if (process.argv.includes('--check')) {
    console.error('The stored pieces differ from the declarations: run npm run migration:stored-json');
    process.exitCode = 1;
  } else {
    const last = readdirSync(dir).filter((f) => /^\d{4}_.*\.sql$/.test(f)).sort().at(-1)!;
    const file = `${String(Number(last.slice(0, 4)) + 1).padStart(4, '0')}_stored_json.sql`;
    const head = `-- Made by scripts/migration-stored-json.ts from the resources' declarations (src/members/):\n-- the stored JSON pieces, their trigger functions and triggers, and every row rendered again.\n\n`;
    writeFileSync(join(dir, file), `${head}${parts.join('\n\n')}\n`);
    console.log(`wrote migrations/${file}`);
  }
} finally {
  await database.close();
}
