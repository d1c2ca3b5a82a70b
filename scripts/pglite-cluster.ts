// `npm run db:pglite-cluster`: writes src/db/pglite-cluster.tar.br and its manifest
// src/db/pglite-cluster.json, the fresh PGlite cluster the first start of an empty DATA_DIR loads
// instead of running initdb (src/db/pglite-cluster.ts). Made by the installed PGlite with the options
// the service opens it with (openPglite: extensions, start parameters), before any migration, so only a
// PGlite upgrade changes it. initdb draws a new system identifier and timestamps every time, so two
// runs never make the same bytes: when the files already match the installed PGlite this writes
// nothing (`--force` makes a new one all the same).
// `npm run db:pglite-cluster -- --check` fails when they do not match (PGlite upgraded without
// regenerating, file changed or missing); test/db/pglite-cluster.test.ts runs it, so CI does too.
import { writeFileSync } from 'node:fs';
import { constants, brotliCompressSync } from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../src/db/database.ts';
import {
  type ClusterManifest,
  installedPgliteVersion,
  manifestPath,
  readShippedCluster,
  REGENERATE_CLUSTER,
  SHIPPED_CLUSTER,
  sha256,
  tarMembers,
} from '../src/db/pglite-cluster.ts';

const shown = 'src/db/pglite-cluster.tar.br';

/** A regular file's text out of the cluster's archive. */
function tarMember(tar: Uint8Array, name: string): string | null {
  for (const member of tarMembers(tar))
    if (member.name === name && member.type === 'file') return Buffer.from(member.data).toString('latin1');
  return null;
}

/** Why the shipped cluster does not match the installed PGlite; null when it does. */
async function mismatch(): Promise<string | null> {
  const shipped = await readShippedCluster();
  if ('unusable' in shipped) return `${shown} does not match: ${shipped.unusable}`;
  const version = tarMember(shipped.tar, 'PG_VERSION')?.trim();
  if (version !== shipped.manifest.postgres)
    return `${shown} holds PG_VERSION ${version ?? '(none)'}, its manifest says ${shipped.manifest.postgres}`;
  return null;
}

async function make(): Promise<void> {
  const started = Date.now();
  let pglite!: PGlite;
  const database = await openPglite(null, { onPglite: (p) => (pglite = p) });
  let tar: Uint8Array;
  let systemIdentifier: string;
  try {
    const { rows } = await pglite.query<{ id: string }>(
      'select system_identifier::text as id from pg_control_system()',
    );
    systemIdentifier = rows[0]!.id;
    // Written out now rather than replayed from the WAL by every first start.
    await database.exec('checkpoint');
    tar = new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer());
  } finally {
    await database.close();
  }
  // Quality 11 with a 16 MB window: the zero-filled WAL segment and the catalogs' repeated pages
  // shrink to ~1.4 MB (gzip: ~4.5 MB); decompressing takes ~0.1 s at the first start.
  const compressed = brotliCompressSync(tar, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
    },
  });
  const manifest: ClusterManifest = {
    pglite: installedPgliteVersion(),
    postgres: tarMember(tar, 'PG_VERSION')?.trim() ?? '',
    systemIdentifier,
    sha256: sha256(compressed),
  };
  writeFileSync(SHIPPED_CLUSTER, compressed);
  writeFileSync(manifestPath(SHIPPED_CLUSTER), `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(
    `wrote ${shown}: PGlite ${manifest.pglite}, PostgreSQL ${manifest.postgres}, ` +
      `${(tar.length / 2 ** 20).toFixed(1)} MB of tar in ${(compressed.length / 2 ** 20).toFixed(2)} MB ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
}

const problem = await mismatch();
if (process.argv.includes('--check')) {
  if (problem) {
    console.error(`${problem}. Run \`${REGENERATE_CLUSTER}\` and commit the two files.`);
    process.exitCode = 1;
  } else console.log(`${shown} matches the installed PGlite (${installedPgliteVersion()}).`);
} else if (problem || process.argv.includes('--force')) await make();
else console.log(`${shown} already matches the installed PGlite; nothing written (--force makes a new one).`);
