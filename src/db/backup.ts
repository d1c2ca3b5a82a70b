import { once } from 'node:events';
import { createReadStream, createWriteStream, renameSync, unlinkSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from './database.ts';
import type { DB } from './schema.ts';

// `db backup FILE` / `db restore FILE`: a logical backup of every table of the service, the same
// on both engines and through any connection (PGlite's owner, its socket, or PostgreSQL). The
// system pg_dump cannot be relied on: it refuses servers newer than itself, and PGlite is 17.
//
// Format (JSON lines; gzip when FILE ends in .gz): a header {format, version, migrations}, then
// {table, rows:[…]} chunks (rows as row_to_json), then {sequence, last_value}. Read in one
// REPEATABLE READ transaction, so the backup is one consistent snapshot. Restore loads it in one
// transaction with triggers and foreign-key checks off (session_replication_role = replica), into
// a database at the same migration level whose tables are empty, or with `force`, replacing them.

const FORMAT = 'tracker-backup';
const CHUNK = 500;

export class BackupError extends Error {}

/** What a backup holds and a restore loads, counted alike: rows, and the tables that have any. */
export interface BackupCount {
  tables: number;
  rows: number;
}

export async function backup(database: Database, file: string): Promise<BackupCount> {
  const tmp = `${file}.${process.pid}.tmp`;
  const raw = createWriteStream(tmp);
  const gz = file.endsWith('.gz') ? createGzip() : null;
  gz?.pipe(raw);
  const sink = gz ?? raw;
  const write = async (obj: unknown) => {
    if (!sink.write(`${JSON.stringify(obj)}\n`)) await once(sink, 'drain');
  };
  let rows = 0;
  let tableCount = 0;
  try {
    await database.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute(async (trx) => {
        const migrations = await sql<{
          version: string;
        }>`select version from schema_migrations order by version`.execute(trx);
        await write({
          format: FORMAT,
          version: 1,
          created_at: new Date().toISOString(),
          migrations: migrations.rows.map((r) => r.version),
        });
        for (const table of await appTables(trx)) {
          let hadRows = false;
          await sql`declare backup_rows no scroll cursor for select row_to_json(t)::text as j from ${sql.table(table)} t`.execute(
            trx,
          );
          for (;;) {
            const chunk = await sql<{ j: string }>`fetch ${sql.raw(String(CHUNK))} from backup_rows`.execute(
              trx,
            );
            if (chunk.rows.length === 0) break;
            if (!hadRows) tableCount++;
            hadRows = true;
            rows += chunk.rows.length;
            await write({ table, rows: chunk.rows.map((r) => JSON.parse(r.j)) });
          }
          await sql`close backup_rows`.execute(trx);
        }
        for (const s of await sequences(trx)) await write({ sequence: s.name, last_value: s.last_value });
      });
    sink.end();
    await once(raw, 'close');
    renameSync(tmp, file);
  } catch (err) {
    raw.destroy();
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
  return { tables: tableCount, rows };
}

export async function restore(
  database: Database,
  file: string,
  opts: { force?: boolean } = {},
): Promise<BackupCount> {
  const input = createReadStream(file);
  const lines = createInterface({
    input: file.endsWith('.gz') ? input.pipe(createGunzip()) : input,
    crlfDelay: Infinity,
  });
  const iterator = lines[Symbol.asyncIterator]();
  const first = await iterator.next();
  const header = first.done ? null : (JSON.parse(first.value) as { format?: string; migrations?: string[] });
  if (header?.format !== FORMAT) throw new BackupError(`${file} is not a backup made by \`db backup\``);
  let rows = 0;
  const touched = new Set<string>();
  await database.db.transaction().execute(async (trx) => {
    const migrations = await sql<{
      version: string;
    }>`select version from schema_migrations order by version`.execute(trx);
    const here = migrations.rows.map((r) => r.version).join(',');
    if (here !== (header.migrations ?? []).join(',')) {
      throw new BackupError(
        `${file} was made at migration level ${(header.migrations ?? []).at(-1)}, this database is at ${migrations.rows.at(-1)?.version}: restore with the version of the service that made it`,
      );
    }
    const tables = await appTables(trx);
    const nonEmpty: string[] = [];
    for (const t of tables) {
      const r = await sql<{ one: number }>`select 1 as one from ${sql.table(t)} limit 1`.execute(trx);
      if (r.rows.length) nonEmpty.push(t);
    }
    if (nonEmpty.length && !opts.force) {
      throw new BackupError(
        `The database is not empty (${nonEmpty.join(', ')}): restore into a new DATA_DIR or database, or pass --force to replace its data`,
      );
    }
    await sql`set local session_replication_role = replica`.execute(trx);
    if (nonEmpty.length) await sql`truncate ${sql.join(tables.map((t) => sql.table(t)))}`.execute(trx);
    const known = new Set(tables);
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      if (!next.value.trim()) continue;
      const item = JSON.parse(next.value) as {
        table?: string;
        rows?: unknown[];
        sequence?: string;
        last_value?: string | null;
      };
      if (item.table && item.rows) {
        if (!known.has(item.table))
          throw new BackupError(`${file} has rows of an unknown table ${item.table}`);
        await sql`insert into ${sql.table(item.table)} select * from json_populate_recordset(null::${sql.table(item.table)}, ${JSON.stringify(item.rows)}::json)`.execute(
          trx,
        );
        rows += item.rows.length;
        touched.add(item.table);
      } else if (item.sequence) {
        await sql`select setval(${item.sequence}::regclass, ${item.last_value ?? 1}::bigint, ${item.last_value !== null})`.execute(
          trx,
        );
      }
    }
    // Triggers were off, so tell running API processes to drop their caches.
    await sql`select pg_notify('tracker_keys', ''), pg_notify('tracker_changes', '*')`.execute(trx);
  });
  return { tables: touched.size, rows };
}

async function appTables(trx: Transaction<DB> | Kysely<DB>): Promise<string[]> {
  const r = await sql<{ name: string }>`select c.relname as name from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
      and c.relname <> 'schema_migrations'
    order by c.relname`.execute(trx);
  return r.rows.map((x) => x.name);
}

async function sequences(trx: Transaction<DB>): Promise<{ name: string; last_value: string | null }[]> {
  const r = await sql<{
    name: string;
    last_value: string | null;
  }>`select quote_ident(sequencename) as name, last_value::text as last_value
    from pg_sequences where schemaname = current_schema() order by sequencename`.execute(trx);
  return r.rows;
}
