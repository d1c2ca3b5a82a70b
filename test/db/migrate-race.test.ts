import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import pg from 'pg';
import { migrationFiles } from '../../src/db/migrate.ts';
import { createEmptyPostgresDatabase, ENGINES } from '../helpers/db.ts';
import { spawnNode } from '../helpers/process.ts';

// Issue 31 (6): two processes migrating one empty database at once both succeed and each
// migration's body runs once: the process that waits on the advisory lock checks, once it holds
// it, whether the other applied the version meanwhile (src/db/migrate.ts).

const SKIP = ENGINES.includes('postgres')
  ? false
  : 'PostgreSQL only (TEST_DATABASE_URL unset): an embedded database has one owner process ' +
    '(src/db/embedded-lock.ts), so two processes never migrate it at once';

/** Two processes started together on `url`; each one's applied versions. */
async function race(url: string, dir?: string): Promise<string[][]> {
  const children = [0, 1].map(() => spawnNode(['test/db/migrate-child.ts', url, ...(dir ? [dir] : [])], {}));
  try {
    await Promise.all(children.map((c) => c.waitFor(/^ready$/m)));
    for (const c of children) c.child.stdin!.write('go\n');
    await Promise.all(children.map((c) => c.waitFor(/^\{.*\}$/m)));
    const codes = await Promise.all(children.map((c) => c.exited));
    assert.deepEqual(codes, [0, 0], children.map((c) => c.output()).join('\n---\n'));
    return children.map((c) => JSON.parse(c.output().match(/^\{.*\}$/m)![0]).applied);
  } finally {
    for (const c of children) c.kill('SIGKILL');
  }
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

describe('two processes migrating an empty database at once', { skip: SKIP }, () => {
  test("the product's migrations: both succeed, each version applied by one of them, recorded once", async () => {
    const { url, drop } = await createEmptyPostgresDatabase();
    try {
      const [a, b] = await race(url);
      assert.deepEqual([...a!, ...b!].sort(), migrationFiles());
      const recorded = await query<{ version: string }>(
        url,
        'select version from schema_migrations order by 1',
      );
      assert.deepEqual(
        recorded.map((r) => r.version),
        migrationFiles(),
      );
    } finally {
      await drop();
    }
  });

  test('a body runs once: the process that waited on the lock finds the version applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
    const { url, drop } = await createEmptyPostgresDatabase();
    try {
      // A sequence outside the migrations counts the bodies run: nextval survives a rollback, so a
      // body that ran again and then failed still counts. The first body is slow, so the second
      // process reads "pending" and waits on the lock while the first applies it.
      await query(url, 'create sequence body_runs');
      writeFileSync(
        join(dir, '0001_slow.sql'),
        "select nextval('body_runs');\nselect pg_sleep(1);\ncreate table one (x int);\n",
      );
      writeFileSync(join(dir, '0002_next.sql'), "select nextval('body_runs');\ncreate table two (x int);\n");
      const [a, b] = await race(url, dir);
      assert.deepEqual([...a!, ...b!].sort(), ['0001_slow.sql', '0002_next.sql']);
      const [runs] = await query<{ last_value: string }>(url, 'select last_value from body_runs');
      assert.equal(Number(runs!.last_value), 2, 'each body ran once');
    } finally {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
