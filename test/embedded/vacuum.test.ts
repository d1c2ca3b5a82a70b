import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { openEmbedded } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { migratedPgliteDir } from '../helpers/db.ts';

// PGlite runs no autovacuum: the server that owns DATA_DIR vacuums every table itself
// (EMBEDDED_VACUUM_INTERVAL_MS). Observed as a user's disk sees it: 20,000 deleted rows keep their
// pages until a vacuum reclaims them and truncates the emptied pages.

const sizeOf = async (db: Awaited<ReturnType<typeof openEmbedded>>) =>
  Number((await db.queryRows({ name: 'size', text: `select pg_relation_size('scratch')` }, []))[0]![0]);

async function until(check: () => Promise<boolean>, ms: number, what: string) {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('embedded database vacuum [pglite]', () => {
  test('the owning server vacuums every table at its interval; 0 never does', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await migratedPgliteDir('trk-vacuum-');
    try {
      // Interval 0: the dead rows keep their pages.
      const off = await openEmbedded({ dataDir, role: 'server', vacuumIntervalMs: 0 });
      let churned: number;
      try {
        await migrate(off);
        await off.exec(`create table scratch (id int primary key, pad text);
          insert into scratch select g, repeat('x', 100) from generate_series(1, 20000) g;
          delete from scratch;`);
        churned = await sizeOf(off);
        assert.ok(churned >= 200 * 8192, `20,000 deleted rows: ${churned} bytes`);
        await new Promise((r) => setTimeout(r, 400));
        assert.equal(await sizeOf(off), churned);
      } finally {
        await off.close();
      }

      // A short interval: the next server reclaims them, and vacuums (and analyzes) every table.
      const logged: Array<{ tables: number }> = [];
      const on = await openEmbedded({
        dataDir,
        role: 'server',
        vacuumIntervalMs: 100,
        log: {
          info: (o: unknown) => void logged.push(o as { tables: number }),
          warn: (o: unknown) => assert.fail(`vacuum warned: ${JSON.stringify(o)}`),
        } as never,
      });
      try {
        await until(async () => (await sizeOf(on)) < churned / 4, 20_000, 'the dead rows reclaimed');
        await until(async () => logged.length > 0, 20_000, 'a pass logged');
        const tables = await on.queryRows(
          {
            name: 'vacuumed',
            text: `select count(*)::int, count(last_vacuum)::int, count(last_analyze)::int
              from pg_stat_user_tables where schemaname = 'public'`,
          },
          [],
        );
        const [all, vacuumed, analyzed] = tables[0] as number[];
        assert.ok(all! > 20, `${all} tables`);
        assert.equal(vacuumed, all);
        assert.equal(analyzed, all);
        assert.equal(logged[0]!.tables, all);
      } finally {
        await on.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('between passes, the tables that grew since their statistics are analyzed; unchanged ones are not', {
    timeout: 120_000,
  }, async () => {
    const dataDir = await migratedPgliteDir('trk-analyze-');
    const analyzed: string[][] = [];
    const db = await openEmbedded({
      dataDir,
      role: 'server',
      vacuumIntervalMs: 0,
      analyzeCheckMs: 100,
      log: {
        info: (o: unknown) => void analyzed.push((o as { tables: string[] }).tables),
        warn: (o: unknown) => assert.fail(`analyze warned: ${JSON.stringify(o)}`),
      } as never,
    });
    const estimate = async () =>
      Number(
        (
          await db.queryRows(
            { name: 'est', text: `select reltuples from pg_class where relname = 'scratch'` },
            [],
          )
        )[0]![0],
      );
    try {
      await migrate(db);
      // The migrations' empty tables are within the slack: nothing to analyze on a new directory.
      await new Promise((r) => setTimeout(r, 400));
      assert.deepEqual(analyzed, []);
      await db.exec(`create table scratch (id int primary key, pad text);
        insert into scratch select g, repeat('x', 100) from generate_series(1, 20000) g;`);
      await until(async () => (await estimate()) === 20000, 20_000, 'the grown table analyzed');
      await until(async () => analyzed.length === 1, 5_000, 'the analyze logged');
      assert.deepEqual(analyzed, [['scratch']]);
      // Unchanged since: checks keep running and analyze nothing.
      await new Promise((r) => setTimeout(r, 400));
      assert.deepEqual(analyzed, [['scratch']]);
      // A tenth more stays within the threshold; half as much again does not.
      await db.exec(`insert into scratch select g, repeat('x', 100) from generate_series(20001, 22000) g`);
      await new Promise((r) => setTimeout(r, 400));
      assert.equal(await estimate(), 20000);
      await db.exec(`insert into scratch select g, repeat('x', 100) from generate_series(22001, 30000) g`);
      await until(async () => (await estimate()) === 30000, 20_000, 'analyzed again once grown');
      await until(async () => analyzed.length === 2, 5_000, 'the second analyze logged');
      assert.deepEqual(analyzed, [['scratch'], ['scratch']]);
    } finally {
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
