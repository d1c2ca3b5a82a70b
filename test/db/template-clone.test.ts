import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { sql } from 'kysely';
import pg from 'pg';
import { type Database, openPglite, openPostgres } from '../../src/db/database.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import {
  createEmptyPostgresDatabase,
  createPostgresDatabase,
  createTestDatabase,
  dropPostgresTemplate,
  ENGINES,
  makePostgresTemplate,
  migrationSetHash,
  pgliteTemplate,
  pgliteTemplateFile,
  postgresTemplate,
  postgresTemplateName,
} from '../helpers/db.ts';

// Test databases are copies of one migrated template per migration set (test/helpers/db.ts): a
// PostgreSQL template database, a dumped PGlite data directory. A copy must be what migrating an
// empty database gives, and a template must never serve another migration set than its own.

/** Everything the migrations make, in a form two databases can be compared by. */
async function schemaOf(database: Database): Promise<Record<string, unknown[]>> {
  const q = async (text: string) => (await sql.raw(text).execute(database.db)).rows;
  const tables = (await q(
    "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1",
  )) as { table_name: string }[];
  const counts: unknown[] = [];
  for (const { table_name } of tables)
    counts.push({ table_name, rows: (await q(`select count(*)::int as n from "${table_name}"`))[0] });
  return {
    migrations: await q('select version from schema_migrations order by 1'),
    columns: await q(
      `select table_name, column_name, data_type, is_nullable, column_default from information_schema.columns
       where table_schema = 'public' order by 1, 2`,
    ),
    indexes: await q("select indexname, indexdef from pg_indexes where schemaname = 'public' order by 1"),
    constraints: await q(
      `select conrelid::regclass::text as rel, conname, pg_get_constraintdef(oid) as def from pg_constraint
       where connamespace = 'public'::regnamespace order by 1, 2`,
    ),
    triggers: await q(
      `select tgrelid::regclass::text as rel, tgname, pg_get_triggerdef(oid) as def from pg_trigger
       where not tgisinternal order by 1, 2`,
    ),
    functions: await q(
      `select proname, pg_get_function_identity_arguments(oid) as args, md5(prosrc) as src from pg_proc
       where pronamespace = 'public'::regnamespace order by 1, 2, 3`,
    ),
    extensions: await q('select extname from pg_extension order by 1'),
    comments: await q(
      `select c.relname, d.objsubid, d.description from pg_description d
       join pg_class c on c.oid = d.objoid and d.classoid = 'pg_class'::regclass
       where c.relnamespace = 'public'::regnamespace order by 1, 2`,
    ),
    counts,
  };
}

/** A database migrated from empty, the way the service migrates one (no template). */
async function migratedFromEmpty(
  engine: string,
  dir?: URL,
): Promise<{ database: Database; drop(): Promise<void> }> {
  if (engine === 'pglite') {
    const database = await openPglite(null);
    await migrate(database, dir);
    return { database, drop: () => database.close() };
  }
  const { url, drop } = await createEmptyPostgresDatabase();
  const database = await openPostgres(url, 1);
  await migrate(database, dir);
  return {
    database,
    drop: async () => {
      await database.close();
      await drop();
    },
  };
}

/** A copy of `dir`'s template as it is, without the migrate() call createTestDatabase adds. */
async function bareClone(engine: string, dir?: URL): Promise<{ database: Database; drop(): Promise<void> }> {
  if (engine === 'pglite') {
    const database = await openPglite(null, { loadDataDir: await pgliteTemplate(dir) });
    return { database, drop: () => database.close() };
  }
  const { url, drop } = await createPostgresDatabase(await postgresTemplate(dir));
  const database = await openPostgres(url, 1);
  return {
    database,
    drop: async () => {
      await database.close();
      await drop();
    },
  };
}

async function tableNames(database: Database): Promise<string[]> {
  const rows = await sql<{ table_name: string }>`select table_name from information_schema.tables
    where table_schema = 'public' order by 1`.execute(database.db);
  return rows.rows.map((r) => r.table_name);
}

/** Migration sets of their own in temporary directories, and what their templates left behind. */
const sets: URL[] = [];
function migrationSet(files: Record<string, string>, from?: URL): URL {
  const dir = mkdtempSync(join(tmpdir(), 'trk-migrations-'));
  if (from) cpSync(from, dir, { recursive: true });
  for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
  const url = pathToFileURL(`${dir}/`);
  sets.push(url);
  return url;
}
after(async () => {
  for (const dir of sets) {
    rmSync(pgliteTemplateFile(dir), { force: true });
    if (ENGINES.includes('postgres')) {
      const name = postgresTemplateName(dir);
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL! });
      await admin.connect();
      const made = (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount;
      await admin.end();
      if (made) await dropPostgresTemplate(name);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const engine of ENGINES) {
  describe(`test databases are copies of a migrated template [${engine}]`, () => {
    test('a copy has every migration applied: the same schema and rows as a database migrated from empty', async () => {
      const copy = await bareClone(engine);
      const fresh = await migratedFromEmpty(engine);
      try {
        const copied = await schemaOf(copy.database);
        assert.deepEqual(
          (copied.migrations as { version: string }[]).map((r) => r.version),
          migrationFiles(),
          'every migration is recorded in the template itself, before createTestDatabase migrates',
        );
        assert.ok((copied.columns as unknown[]).length > 100, 'the schema is there');
        assert.deepEqual(copied, await schemaOf(fresh.database));
      } finally {
        await copy.drop();
        await fresh.drop();
      }
    });

    test('each copy is a database of its own: what one test writes, no other copy sees', async () => {
      const a = await createTestDatabase(engine);
      try {
        await a.exec('create table only_in_a (x int)');
        const b = await createTestDatabase(engine);
        try {
          assert.ok((await tableNames(a)).includes('only_in_a'));
          assert.ok(!(await tableNames(b)).includes('only_in_a'));
        } finally {
          await b.destroy();
        }
      } finally {
        await a.destroy();
      }
    });

    test('another migration set gets another template: an edited, an added, a removed migration', async () => {
      const one = migrationSet({ '0001_probe.sql': 'create table probe (a int);' });
      const edited = migrationSet({ '0001_probe.sql': 'create table probe (a int, b text);' });
      const added = migrationSet({ '0002_more.sql': 'create table more (c int);' }, one);
      const same = migrationSet({}, one); // the same files in another directory
      assert.equal(
        migrationSetHash(same),
        migrationSetHash(one),
        'the name is of the contents, not the place',
      );
      assert.equal(new Set([one, edited, added].map((d) => migrationSetHash(d))).size, 3);
      assert.notEqual(migrationSetHash(one), migrationSetHash(), "none is the product's");

      const columns = async (dir: URL) => {
        const copy = await bareClone(engine, dir);
        try {
          const s = await schemaOf(copy.database);
          return {
            versions: (s.migrations as { version: string }[]).map((r) => r.version),
            columns: (s.columns as { table_name: string; column_name: string }[]).map(
              (c) => `${c.table_name}.${c.column_name}`,
            ),
          };
        } finally {
          await copy.drop();
        }
      };
      const version = { versions: ['0001_probe.sql'] };
      assert.deepEqual(await columns(one), {
        ...version,
        columns: ['probe.a', 'schema_migrations.applied_at', 'schema_migrations.version'],
      });
      assert.deepEqual(await columns(edited), {
        ...version,
        columns: ['probe.a', 'probe.b', 'schema_migrations.applied_at', 'schema_migrations.version'],
      });
      // Each template costs PGlite a new cluster (seconds): the added file is left to PostgreSQL.
      if (engine === 'postgres')
        assert.deepEqual(await columns(added), {
          versions: ['0001_probe.sql', '0002_more.sql'],
          columns: ['more.c', 'probe.a', 'schema_migrations.applied_at', 'schema_migrations.version'],
        });
      // The first set's template is still its own after the others were made.
      assert.deepEqual((await columns(one)).columns, [
        'probe.a',
        'schema_migrations.applied_at',
        'schema_migrations.version',
      ]);
    });

    if (engine === 'postgres') {
      test('the template is made once by one of the processes that ask together, kept, and takes no connections', async () => {
        const dir = migrationSet({ '0001_race.sql': 'create table race (a int); select pg_sleep(0.3);' });
        // Unremembered calls on connections of their own: they meet at the advisory lock.
        const names = await Promise.all([makePostgresTemplate(dir), makePostgresTemplate(dir)]);
        assert.deepEqual(names, [postgresTemplateName(dir), postgresTemplateName(dir)]);
        const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL! });
        await admin.connect();
        try {
          const rows = await admin.query(
            'select datname, datistemplate, datallowconn from pg_database where datname like $1 order by 1',
            [`${names[0]}%`],
          );
          assert.deepEqual(rows.rows, [{ datname: names[0], datistemplate: true, datallowconn: false }]);
        } finally {
          await admin.end();
        }
        const copy = await bareClone(engine, dir);
        try {
          assert.deepEqual((await schemaOf(copy.database)).migrations, [{ version: '0001_race.sql' }]);
        } finally {
          await copy.drop();
        }
      });
    }
  });
}
