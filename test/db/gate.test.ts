import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PGlite } from '@electric-sql/pglite';
import { type Dialect, Kysely, PGliteDialect, sql } from 'kysely';
import { behindGate, Gate } from '../../src/db/gate.ts';

// The gate exists only on the embedded engine (PGlite's one session, src/db/gate.ts); PostgreSQL's
// pool has no gate, so this runs on PGlite alone.

/** Rejects when `p` takes longer than `ms`: a leaked gate shows as a query that never ends. */
const within = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error('gate leaked')), ms).unref()),
  ]);

test('a failed connection acquisition passes the gate (and Kysely) on: the next query runs', async () => {
  const pglite = new PGlite();
  await pglite.waitReady;
  const dialect = new PGliteDialect({ pglite });
  let failures = 1;
  const failOnce: Dialect = {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (k) => dialect.createIntrospector(k),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async () => {
        if (failures-- > 0) throw new Error('acquisition failed');
        return acquire();
      };
      return driver;
    },
  };
  const db = new Kysely<unknown>({ dialect: behindGate(failOnce, new Gate()) });
  try {
    await assert.rejects(sql`select 1`.execute(db), /acquisition failed/);
    const r = await within(sql<{ n: number }>`select 2 as n`.execute(db), 5000);
    assert.deepEqual(r.rows, [{ n: 2 }]);
  } finally {
    await db.destroy();
  }
});
