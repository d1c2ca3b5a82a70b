import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import { type EmbeddedDatabase, openEmbedded } from '../../src/db/embedded.ts';
import { FIRST_START_MARKER } from '../../src/db/embedded-first-start.ts';
import { migrate } from '../../src/db/migrate.ts';
import {
  type ClusterManifest,
  installedPgliteVersion,
  manifestPath,
  readShippedCluster,
  SHIPPED_CLUSTER,
  sha256,
  tarMembers,
} from '../../src/db/pglite-cluster.ts';

// The first start of an empty DATA_DIR loads the shipped PGlite cluster (src/db/pglite-cluster.ts)
// instead of running initdb, and falls back to initdb when the file is missing or refused. PGlite
// only by nature: a PostgreSQL server's files are its own, so these tests run PGlite whatever
// TEST_DATABASE_URL says. Which way a database was made is told by pg_control's system identifier:
// initdb draws a new one every time, the shipped cluster has the one in its manifest.

const manifest = JSON.parse(readFileSync(manifestPath(SHIPPED_CLUSTER), 'utf8')) as ClusterManifest;

function logs() {
  const lines: { level: 'info' | 'warn'; msg: string }[] = [];
  const at = (level: 'info' | 'warn') => (a: unknown, b?: string) =>
    lines.push({ level, msg: typeof a === 'string' ? a : `${b} ${JSON.stringify(a)}` });
  return { lines, log: { info: at('info'), warn: at('warn') } as never };
}

const systemIdentifier = async (db: EmbeddedDatabase) =>
  String(
    (
      await db.queryRows(
        { name: 'sysid', text: 'select system_identifier::text from pg_control_system()' },
        [],
      )
    )[0]![0],
  );

const ACCOUNT = '00000000-0000-4000-8000-00000000f157';

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

describe('first start of the embedded database [pglite]', () => {
  test('an empty DATA_DIR starts from the shipped cluster; the migrated database survives a restart', {
    timeout: 300_000,
  }, async () => {
    const dataDir = tempDir('trk-first-');
    try {
      const first = logs();
      const db = await openEmbedded({ dataDir, role: 'server', log: first.log });
      try {
        assert.equal(await systemIdentifier(db), manifest.systemIdentifier);
        assert.ok(
          first.lines.some((l) => l.msg.includes('from the shipped cluster')),
          JSON.stringify(first.lines),
        );
        assert.ok(!first.lines.some((l) => l.level === 'warn'), JSON.stringify(first.lines));
        assert.ok(!existsSync(join(dataDir, FIRST_START_MARKER)));
        assert.ok((await migrate(db)).length > 0);
        await db.exec(`insert into accounts (id, name) values ('${ACCOUNT}', 'first start')`);
      } finally {
        await db.close();
      }
      const again = logs();
      const reopened = await openEmbedded({ dataDir, role: 'server', log: again.log });
      try {
        assert.deepEqual(await migrate(reopened), []);
        const rows = await reopened.queryRows(
          { name: 'kept', text: 'select name from accounts where id = $1' },
          [ACCOUNT],
        );
        assert.deepEqual(rows, [['first start']]);
        assert.equal(await systemIdentifier(reopened), manifest.systemIdentifier);
        assert.ok(!again.lines.some((l) => l.msg.includes('created the embedded database')));
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a cluster PGlite refuses: initdb instead, with a warning that says how to regenerate', {
    timeout: 300_000,
  }, async () => {
    const dataDir = tempDir('trk-first-refused-');
    const files = tempDir('trk-first-cluster-');
    try {
      // The shipped cluster with the PG_VERSION of another PostgreSQL major: PostgreSQL refuses the
      // files as made by another version, as it would a catalog from another PGlite.
      const shipped = await readShippedCluster();
      assert.ok('tar' in shipped, JSON.stringify(shipped));
      const tar = Buffer.from(shipped.tar);
      const version = [...tarMembers(tar)].find((m) => m.name === 'PG_VERSION');
      assert.ok(version, 'no PG_VERSION in the shipped cluster');
      version.data.set(Buffer.from('11'));
      const compressed = brotliCompressSync(tar);
      const cluster = join(files, 'other.tar.br');
      writeFileSync(cluster, compressed);
      writeFileSync(manifestPath(cluster), JSON.stringify({ ...manifest, sha256: sha256(compressed) }));
      mkdirSync(join(dataDir, 'documents'));
      writeFileSync(join(dataDir, 'documents', 'kept.txt'), 'not the database');

      const first = logs();
      const db = await openEmbedded({ dataDir, role: 'server', log: first.log, pgliteCluster: cluster });
      let id: string;
      try {
        id = await systemIdentifier(db);
        assert.notEqual(id, manifest.systemIdentifier);
        const warning = first.lines.find((l) => l.level === 'warn');
        assert.match(warning?.msg ?? '', /refused the shipped cluster.*npm run db:pglite-cluster/s);
        assert.ok(first.lines.some((l) => l.msg.includes('created the embedded database with initdb')));
        await db.exec('create table kept (n int); insert into kept values (42)');
      } finally {
        await db.close();
      }
      assert.equal(readFileSync(join(dataDir, 'documents', 'kept.txt'), 'utf8'), 'not the database');
      const reopened = await openEmbedded({ dataDir, role: 'server', pgliteCluster: cluster });
      try {
        assert.equal(await systemIdentifier(reopened), id);
        assert.deepEqual(await reopened.queryRows({ name: 'kept', text: 'select n from kept' }, []), [[42]]);
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(files, { recursive: true, force: true });
    }
  });

  test('a missing cluster file, or one another PGlite made, is not used', async () => {
    const files = tempDir('trk-first-cluster-');
    try {
      const missing = await readShippedCluster(join(files, 'missing.tar.br'));
      assert.match('unusable' in missing ? missing.unusable : '', /cannot be read/);
      const other = join(files, 'other.tar.br');
      writeFileSync(other, readFileSync(SHIPPED_CLUSTER));
      writeFileSync(manifestPath(other), JSON.stringify({ ...manifest, pglite: '0.0.1' }));
      const older = await readShippedCluster(other);
      assert.equal(
        'unusable' in older ? older.unusable : '',
        `it was made by PGlite 0.0.1 and PGlite ${installedPgliteVersion()} is installed`,
      );
    } finally {
      rmSync(files, { recursive: true, force: true });
    }
  });

  test('a first start killed while creating the database: the next start creates it again', {
    timeout: 300_000,
  }, async () => {
    const dataDir = tempDir('trk-first-killed-');
    try {
      // SIGKILL as soon as PG_VERSION shows: the cluster's files are being written (PG_VERSION comes
      // before the last of them), the state a start without the marker would take for a database.
      const embedded = new URL('../../src/db/embedded.ts', import.meta.url).href;
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { openEmbedded } from ${JSON.stringify(embedded)};
           await openEmbedded({ dataDir: ${JSON.stringify(dataDir)}, role: 'cli' });`,
        ],
        { stdio: 'ignore' },
      );
      const exited = new Promise((r) => child.once('exit', r));
      const marker = join(dataDir, FIRST_START_MARKER);
      const started = Date.now();
      while (!existsSync(join(dataDir, 'PG_VERSION'))) {
        assert.ok(Date.now() - started < 120_000, 'the child never began creating the database');
        await new Promise((r) => setTimeout(r, 2));
      }
      child.kill('SIGKILL');
      await exited;
      const cutShort = existsSync(marker);

      const next = logs();
      const db = await openEmbedded({ dataDir, role: 'server', log: next.log });
      try {
        assert.equal(await systemIdentifier(db), manifest.systemIdentifier);
        assert.ok((await migrate(db)).length > 0);
        if (cutShort) assert.ok(next.lines.some((l) => l.level === 'warn' && l.msg.includes('cut short')));
        assert.ok(!existsSync(marker));
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('a directory left with the marker and part of a cluster is created again, other files kept', {
    timeout: 300_000,
  }, async () => {
    const dataDir = tempDir('trk-first-partial-');
    try {
      writeFileSync(join(dataDir, FIRST_START_MARKER), '');
      writeFileSync(join(dataDir, 'PG_VERSION'), '18\n');
      mkdirSync(join(dataDir, 'base', '1'), { recursive: true });
      writeFileSync(join(dataDir, 'base', '1', '1259'), Buffer.alloc(100));
      writeFileSync(join(dataDir, 'notes.txt'), 'mine');
      const next = logs();
      const db = await openEmbedded({ dataDir, role: 'server', log: next.log });
      try {
        assert.equal(await systemIdentifier(db), manifest.systemIdentifier);
        assert.ok(next.lines.some((l) => l.level === 'warn' && l.msg.includes('cut short')));
        assert.equal(readFileSync(join(dataDir, 'notes.txt'), 'utf8'), 'mine');
      } finally {
        await db.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
