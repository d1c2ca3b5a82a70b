import { existsSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { type Database, openPglite } from './database.ts';
import type { Gate } from './gate.ts';
import {
  type ClusterManifest,
  extractCluster,
  REGENERATE_CLUSTER,
  readShippedCluster,
  SHIPPED_CLUSTER,
} from './pglite-cluster.ts';

// Opening the embedded database's files, and creating them on the first start of an empty DATA_DIR
// (no PG_VERSION): from the shipped cluster (pglite-cluster.ts) rather than by PGlite's initdb,
// falling back to initdb when the file is missing, made by another PGlite, or refused. A directory
// that holds a database is opened as it is, never written over.
//
// Creating is not atomic: writing the shipped cluster, like PGlite copying in initdb's result as a tar,
// puts file after file into DATA_DIR, PG_VERSION among them, so a process killed meanwhile would leave
// a directory the next start takes for a database. So a marker
// file is written before creating and removed once PGlite has opened the new database: a start that
// finds it deletes the partial cluster and creates it again. (Crashes only: PGlite runs PostgreSQL
// with fsync off, so no write of its own is ordered against a power loss either.) The migrations
// that follow need no marker: each runs in a transaction and an interrupted one runs again.

/** Present while the first start creates the database; found by a later start, the creation was cut short. */
export const FIRST_START_MARKER = 'tracker.first-start';

/** The top-level entries of a PostgreSQL data directory: what a cut-short creation may have left. */
const CLUSTER_ENTRY =
  /^(PG_VERSION|base|global|pg_\w+|pg_(hba|ident)\.conf|postgresql(\.auto)?\.conf|postmaster\.(pid|opts)|current_logfiles)$/;

export interface OpenDataDirOptions {
  gate: Gate;
  onPglite: (pglite: PGlite) => void;
  log?: Pick<Logger, 'info' | 'warn'>;
  /** The cluster to create from (tests); default the shipped one. */
  cluster?: string;
}

export async function openPgliteDataDir(dataDir: string, opts: OpenDataDirOptions): Promise<Database> {
  const { gate, onPglite, log } = opts;
  const marker = join(dataDir, FIRST_START_MARKER);
  if (existsSync(marker)) {
    log?.warn(
      { dataDir },
      'the first start of this embedded database was cut short before the database opened; creating it again',
    );
    removeCluster(dataDir);
  } else if (existsSync(join(dataDir, 'PG_VERSION'))) return openPglite(dataDir, { gate, onPglite });
  writeFileSync(
    marker,
    'The embedded database in this directory is being created. A start that finds this file deletes the ' +
      'partial database and creates it again.\n',
  );
  const database = await create(dataDir, opts);
  try {
    unlinkSync(marker);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

async function create(dataDir: string, opts: OpenDataDirOptions): Promise<Database> {
  const { gate, onPglite, log } = opts;
  const file = opts.cluster ?? SHIPPED_CLUSTER;
  const instead = `creating the embedded database with PGlite's initdb instead (slower, and it needs far more memory); regenerate it with \`${REGENERATE_CLUSTER}\``;
  const shipped = await writeShippedCluster(file, dataDir);
  if ('pglite' in shipped) {
    try {
      const database = await openPglite(dataDir, { gate, onPglite });
      log?.info(
        { cluster: file, pglite: shipped.pglite },
        'created the embedded database from the shipped cluster',
      );
      return database;
    } catch (err) {
      log?.warn(
        { cluster: file, err: (err as Error).message },
        `PGlite refused the shipped cluster; ${instead}`,
      );
    }
  } else log?.warn({ cluster: file }, `the shipped cluster is not used: ${shipped.unusable}; ${instead}`);
  removeCluster(dataDir);
  const database = await openPglite(dataDir, { gate, onPglite });
  log?.info('created the embedded database with initdb');
  return database;
}

/** The cluster's files written into dataDir (its 40 MB of tar unreferenced once this returns), or why not. */
async function writeShippedCluster(
  file: string,
  dataDir: string,
): Promise<ClusterManifest | { unusable: string }> {
  const shipped = await readShippedCluster(file);
  if ('unusable' in shipped) return shipped;
  try {
    extractCluster(shipped.tar, dataDir);
  } catch (err) {
    return { unusable: `it could not be written into ${dataDir} (${(err as Error).message})` };
  }
  return shipped.manifest;
}

/** Deletes what a creation writes into DATA_DIR, and nothing else (the lock, documents, backups stay). */
function removeCluster(dataDir: string): void {
  for (const name of readdirSync(dataDir))
    if (CLUSTER_ENTRY.test(name)) rmSync(join(dataDir, name), { recursive: true, force: true });
}
