import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';

// The settings every session of the service runs with (src/db/database.ts, openPostgres and openPglite).
// PGlite has no JIT to turn off.

describe('PostgreSQL sessions of the service', { skip: !ENGINES.includes('postgres') }, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase('postgres', { poolSize: 3 });
  });
  after(async () => {
    await t.destroy();
  });

  test('run without JIT, on every connection of the pool, by either way of querying', async () => {
    // Three at once hold three connections; the sleep keeps each busy until all are open.
    const settings = await Promise.all(
      [1, 2, 3].map(async () => {
        const r = await sql<{
          jit: string;
          pid: number;
        }>`select current_setting('jit') as jit, pg_backend_pid() as pid, pg_sleep(0.05)`.execute(t.db);
        return r.rows[0]!;
      }),
    );
    assert.equal(new Set(settings.map((s) => s.pid)).size, 3);
    assert.deepEqual(
      settings.map((s) => s.jit),
      ['off', 'off', 'off'],
    );
    const prepared = await t.queryRow({ name: 'jit_setting', text: "select current_setting('jit')" }, []);
    assert.deepEqual(prepared, ['off']);
  });
});

// PGlite keeps its shared buffers in WebAssembly memory that never shrinks (src/db/database.ts,
// openPglite): 16 MB instead of PostgreSQL's 128 MB, and PGlite's own start settings kept.
describe('the embedded PGlite session', { skip: !ENGINES.includes('pglite') }, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase('pglite');
  });
  after(async () => {
    await t.destroy();
  });

  test('runs with 16 MB of shared buffers and PGlite’s start settings', async () => {
    const r = await sql<{ sb: string; sp: string; workers: string }>`
      select current_setting('shared_buffers') as sb, current_setting('search_path') as sp,
             current_setting('max_worker_processes') as workers`.execute(t.db);
    assert.deepEqual(r.rows[0], { sb: '16MB', sp: 'public', workers: '0' });
  });
});
