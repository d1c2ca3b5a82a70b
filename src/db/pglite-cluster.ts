import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliDecompress } from 'node:zlib';

// The shipped PGlite cluster (issue 30): a fresh PostgreSQL data directory as the installed PGlite's
// initdb makes it, before any migration, dumped by PGlite's dumpDataDir and brotli-compressed (40 MB of
// tar, mostly a zero-filled 16 MB WAL segment, in ~1.4 MB). The first start of an empty DATA_DIR
// loads it instead of running initdb, a second PostgreSQL instance in WebAssembly that is most of that
// start's memory and seconds (docs/architecture.md, "The embedded default on small hosts"). It depends
// only on the PGlite version, never on the migrations; scripts/pglite-cluster.ts makes it and checks
// that it matches the installed PGlite. Its manifest beside it says what made it.

export const SHIPPED_CLUSTER = fileURLToPath(new URL('./pglite-cluster.tar.br', import.meta.url));

/** What to run when the shipped cluster does not match the installed PGlite. */
export const REGENERATE_CLUSTER = 'npm run db:pglite-cluster';

export interface ClusterManifest {
  /** The @electric-sql/pglite version whose initdb made it: any other version runs initdb instead. */
  pglite: string;
  /** Its PG_VERSION: the PostgreSQL major version of the files. */
  postgres: string;
  /**
   * pg_control's system identifier. initdb draws a new one every time, so a database that has this
   * one was made from the file (tests tell the two first starts apart by it).
   */
  systemIdentifier: string;
  /** Of the compressed file, so a file changed without its manifest is not taken for it. */
  sha256: string;
}

/** The manifest's path: beside the cluster, `.json` for `.tar.br`. */
export const manifestPath = (cluster: string): string => cluster.replace(/\.tar\.br$/, '') + '.json';

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The installed PGlite's version (its package.json is not among its exports: found beside its entry). */
export function installedPgliteVersion(): string {
  const entry = fileURLToPath(import.meta.resolve('@electric-sql/pglite'));
  const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export type ShippedCluster =
  | { tar: Uint8Array<ArrayBuffer>; manifest: ClusterManifest }
  | { unusable: string };

/**
 * The shipped cluster as an uncompressed tar, when it matches the installed PGlite; otherwise why
 * not (missing, unreadable, made by another PGlite version, changed without its manifest).
 */
export async function readShippedCluster(file: string = SHIPPED_CLUSTER): Promise<ShippedCluster> {
  let manifest: ClusterManifest;
  let compressed: Buffer;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(file), 'utf8')) as ClusterManifest;
    compressed = readFileSync(file);
  } catch (err) {
    return { unusable: `it cannot be read (${(err as Error).message})` };
  }
  const installed = installedPgliteVersion();
  if (manifest.pglite !== installed)
    return { unusable: `it was made by PGlite ${manifest.pglite} and PGlite ${installed} is installed` };
  if (sha256(compressed) !== manifest.sha256) return { unusable: 'its contents differ from its manifest' };
  try {
    return { tar: await promisify(brotliDecompress)(compressed), manifest };
  } catch (err) {
    return { unusable: `it does not decompress (${(err as Error).message})` };
  }
}

export interface TarMember {
  /** Relative to the archive's root (PGlite writes '/PG_VERSION', '/base/1/…'). */
  name: string;
  type: 'file' | 'dir';
  data: Uint8Array;
}

/** The members of a ustar archive as PGlite's dumpDataDir writes it: regular files and directories. */
export function* tarMembers(tar: Uint8Array): Generator<TarMember> {
  const field = (from: number, length: number) =>
    Buffer.from(tar.buffer, tar.byteOffset + from, length)
      .toString('latin1')
      .replace(/\0.*$/s, '');
  for (let at = 0; at + 512 <= tar.length; ) {
    const base = field(at, 100);
    if (!base) return; // the zero blocks that end an archive
    const prefix = field(at + 257, 5) === 'ustar' ? field(at + 345, 155) : '';
    const name = (prefix ? `${prefix}/${base}` : base).replace(/^\/+/, '').replace(/\/+$/, '');
    const size = Number.parseInt(field(at + 124, 12).trim() || '0', 8);
    const type = field(at + 156, 1);
    if (!(type === '0' || type === '' || type === '5') || name.split('/').includes('..'))
      throw new Error(`unexpected member in the cluster's archive: ${name} (type ${type})`);
    yield { name, type: type === '5' ? 'dir' : 'file', data: tar.subarray(at + 512, at + 512 + size) };
    at += 512 + Math.ceil(size / 512) * 512;
  }
}

/**
 * Writes the cluster's files into `dataDir`, before PGlite starts, which then opens them as any
 * existing database. Rather than PGlite's `loadDataDir`, which takes further copies of the 40 MB of
 * tar (as a Blob, an ArrayBuffer, then file by file) while its WebAssembly is compiling: measured on
 * its own with --liftoff-only, a peak of ~260 MB instead of ~400 MB, and ~250 ms sooner ready.
 */
export function extractCluster(tar: Uint8Array, dataDir: string): void {
  for (const member of tarMembers(tar)) {
    const path = join(dataDir, member.name);
    if (member.type === 'dir') mkdirSync(path, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      writeFileSync(path, member.data, { mode: 0o600 });
    }
  }
}
