import { createHash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { type Database, type Engine, openPglite, openPostgres } from '../../src/db/database.ts';
import { migrate, migrationFiles } from '../../src/db/migrate.ts';
import { installedPgliteVersion, readShippedCluster } from '../../src/db/pglite-cluster.ts';

/** Every storage-touching test runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set. */
export const ENGINES: Engine[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/** The product's migrations (what src/db/migrate.ts runs by default). */
export const MIGRATIONS_DIR = new URL('../../migrations/', import.meta.url);

export interface TestDatabase extends Database {
  /** postgres:// URL of this database (PostgreSQL only), for child processes. */
  url: string | null;
  /** Drops the database (PostgreSQL) after closing. */
  destroy(): Promise<void>;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(statement: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL! });
  await client.connect();
  try {
    return await client.query(statement, values);
  } finally {
    await client.end();
  }
}

/** A PostgreSQL database of its own on TEST_DATABASE_URL's server: empty, or a copy of `template`. */
export async function createPostgresDatabase(
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name}${template ? ` template ${template}` : ''}`);
  return {
    url: withDatabase(process.env.TEST_DATABASE_URL!, name),
    drop: async () => {
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

/** An empty PostgreSQL database of its own (not migrated), on TEST_DATABASE_URL's server. */
export function createEmptyPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  return createPostgresDatabase();
}

/**
 * A short name for a migration set: every file's name and contents, in the order they run. A
 * template made from one set is never used for another (an edited, added or removed migration).
 */
export function migrationSetHash(dir: URL = MIGRATIONS_DIR): string {
  const hash = createHash('sha256');
  for (const file of migrationFiles(dir)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(new URL(file, dir)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

// Migrating a database takes a test longer than the test itself in many files: PostgreSQL runs 35
// scripts per database, and PGlite first creates a cluster (initdb, ~3 s of WebAssembly). So each
// engine migrates once per migration set and copies the result: PostgreSQL clones a template
// database, PGlite loads a dumped data directory. Every copy is then handed to migrate() as well,
// which finds each version recorded (one read): a template missing a migration could only make a
// test slower, never run it on a schema that is behind.

/** Advisory lock key (on TEST_DATABASE_URL's database) under which one process builds a template. */
const TEMPLATE_LOCK = 726355;

const postgresTemplates = new Map<string, Promise<string>>();

/**
 * The name of a migrated template database for `dir`'s migration set on TEST_DATABASE_URL's server,
 * made on first use. It is left in place for the next test process and the next run (its name says
 * which set it holds; a new set gets a new one). Built under another name and renamed when complete,
 * so a template by this name is always whole, even after a builder was killed half-way. Connections
 * to it are refused (allow_connections false): a session open on a template makes cloning it fail.
 */
export function postgresTemplate(dir: URL = MIGRATIONS_DIR): Promise<string> {
  const name = postgresTemplateName(dir);
  let made = postgresTemplates.get(name);
  if (!made) {
    made = makePostgresTemplate(dir);
    postgresTemplates.set(name, made);
    made.catch(() => postgresTemplates.delete(name));
  }
  return made;
}

export const postgresTemplateName = (dir: URL = MIGRATIONS_DIR): string => `tmpl_${migrationSetHash(dir)}`;

/** postgresTemplate without this process's memory of it: finds or builds the template. */
export async function makePostgresTemplate(dir: URL = MIGRATIONS_DIR): Promise<string> {
  const name = postgresTemplateName(dir);
  const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL! });
  await admin.connect();
  const exists = async (db: string) =>
    ((await admin.query('select 1 from pg_database where datname = $1', [db])).rowCount ?? 0) > 0;
  try {
    if (await exists(name)) return name;
    // Test files start together: one builds, the others wait here and then find it made.
    await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK]);
    try {
      if (await exists(name)) return name;
      // Left by a builder that was killed before it finished (builders hold the lock).
      const dead = await admin.query<{ datname: string }>(
        'select datname from pg_database where datname like $1',
        [`${name}\\_b\\_%`],
      );
      for (const { datname } of dead.rows) {
        await admin.query(`alter database ${datname} with is_template false`);
        await admin.query(`drop database if exists ${datname} with (force)`);
      }
      const building = `${name}_b_${randomBytes(4).toString('hex')}`;
      await admin.query(`create database ${building}`);
      const database = await openPostgres(withDatabase(process.env.TEST_DATABASE_URL!, building), 1);
      try {
        await migrate(database, dir);
      } finally {
        await database.close();
      }
      await admin.query(`alter database ${building} with allow_connections false is_template true`);
      await admin.query(`alter database ${building} rename to ${name}`);
      return name;
    } finally {
      await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
    }
  } finally {
    await admin.end();
  }
}

/** Drops a template database made by postgresTemplate (tests of the templates themselves). */
export async function dropPostgresTemplate(name: string): Promise<void> {
  await adminQuery(`alter database ${name} with is_template false`);
  await adminQuery(`drop database if exists ${name} with (force)`);
}

const PGLITE_VERSION = installedPgliteVersion();

const pgliteTemplates = new Map<string, Promise<Blob>>();

/** Where dumped PGlite templates are kept between test processes and runs. */
export const PGLITE_TEMPLATE_DIR = join(tmpdir(), 'tracker-test-templates');

/**
 * A migrated PGlite data directory for `dir`'s migration set, as PGlite's dumpDataDir makes it
 * (an uncompressed tar): made once and kept in PGLITE_TEMPLATE_DIR under a name that says which
 * migration set and which PGlite made it, so later test processes only read it. Written to a file
 * of its own and renamed into place: a reader never sees half a file.
 */
export function pgliteTemplate(dir: URL = MIGRATIONS_DIR): Promise<Blob> {
  const file = pgliteTemplateFile(dir);
  let made = pgliteTemplates.get(file);
  if (!made) {
    made = loadOrBuildPgliteTemplate(file, dir);
    pgliteTemplates.set(file, made);
    made.catch(() => pgliteTemplates.delete(file));
  }
  return made;
}

/** The file pgliteTemplate keeps `dir`'s template in. */
export const pgliteTemplateFile = (dir: URL = MIGRATIONS_DIR): string =>
  join(PGLITE_TEMPLATE_DIR, `${migrationSetHash(dir)}-pglite-${PGLITE_VERSION}.tar`);

async function loadOrBuildPgliteTemplate(file: string, dir: URL): Promise<Blob> {
  try {
    return new Blob([readFileSync(file)], { type: 'application/x-tar' });
  } catch {
    // Not made yet: make it below.
  }
  let pglite: PGlite | undefined;
  // From the shipped cluster, as the service's first start does (no initdb), when it matches.
  const shipped = await readShippedCluster();
  const database = await openPglite(null, {
    onPglite: (p) => (pglite = p),
    ...('tar' in shipped ? { loadDataDir: new Blob([shipped.tar]) } : {}),
  });
  let dump: Blob;
  try {
    await migrate(database, dir);
    // Written out now rather than replayed from the WAL by every copy as it starts.
    await database.exec('checkpoint');
    dump = await pglite!.dumpDataDir('none');
  } finally {
    await database.close();
  }
  mkdirSync(PGLITE_TEMPLATE_DIR, { recursive: true });
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  try {
    writeFileSync(partial, new Uint8Array(await dump.arrayBuffer()));
    renameSync(partial, file);
  } catch {
    rmSync(partial, { force: true }); // kept in memory for this process all the same
  }
  return dump;
}

const pgliteDirTemplates = new Map<string, Promise<string>>();

/**
 * The pgliteTemplate as a data directory on disk (for a server process's DATA_DIR: copy it, never
 * open it), made once and kept beside the dump. Made under a name of its own and renamed into
 * place when complete: a directory by the final name is always whole.
 */
export function pgliteDirTemplate(dir: URL = MIGRATIONS_DIR): Promise<string> {
  const path = pgliteTemplateFile(dir).replace(/\.tar$/, '.dir');
  let made = pgliteDirTemplates.get(path);
  if (!made) {
    made = (async () => {
      if (existsSync(path)) return path;
      mkdirSync(PGLITE_TEMPLATE_DIR, { recursive: true });
      const partial = mkdtempSync(`${path}.partial-`);
      try {
        const database = await openPglite(partial, { loadDataDir: await pgliteTemplate(dir) });
        try {
          await migrate(database, dir);
        } finally {
          await database.close();
        }
        renameSync(partial, path);
      } catch (err) {
        rmSync(partial, { recursive: true, force: true });
        // Another process renamed its own into place first: theirs is as good.
        if (!existsSync(path)) throw err;
      }
      return path;
    })();
    pgliteDirTemplates.set(path, made);
    made.catch(() => pgliteDirTemplates.delete(path));
  }
  return made;
}

/** A new directory in the temp directory holding a copy of the migrated PGlite data directory. */
export async function migratedPgliteDir(prefix = 'trk-'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(await pgliteDirTemplate(), dir, { recursive: true });
  return dir;
}

/**
 * A fresh, migrated database of its own for a test file or test: a copy of the migrated template
 * (see above). `migrations`: another migration set (tests of the templates).
 */
export async function createTestDatabase(
  engine: Engine,
  opts: { poolSize?: number; migrations?: URL } = {},
): Promise<TestDatabase> {
  const dir = opts.migrations ?? MIGRATIONS_DIR;
  if (engine === 'pglite') {
    const database = await openPglite(null, { loadDataDir: await pgliteTemplate(dir) });
    await migrate(database, dir);
    return { ...database, url: null, destroy: () => database.close() };
  }
  const { url, drop } = await createPostgresDatabase(await postgresTemplate(dir));
  const database = await openPostgres(url, opts.poolSize ?? 10);
  await migrate(database, dir);
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
