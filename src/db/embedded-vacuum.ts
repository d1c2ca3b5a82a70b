import type { Logger } from 'pino';
import type { Database } from './database.ts';

// PGlite runs PostgreSQL in one process, without its background workers: autovacuum never runs.
// Every update leaves a dead row version (the worker rewrites a shipment's bookkeeping at every
// refresh attempt), so an embedded database that is never vacuumed grows, its indexes bloat, its
// pages fill with rows no reader can see, and its planner statistics stay those of the day it was
// loaded. The process that owns the files vacuums them instead: every table, one statement at a
// time, so the API's statements take turns with it at the gate. A table whose pages are all
// visible is skipped page by page, so a quiet table costs little.

export interface EmbeddedVacuum {
  /** Stops the timer and waits for a pass that is running. */
  stop(): Promise<void>;
  /** Runs a pass now (tests; the timer runs them otherwise). */
  runOnce(): Promise<void>;
  /** Analyzes the tables that grew since their statistics, now (tests; the check timer otherwise). */
  analyzeGrown(): Promise<void>;
}

/**
 * The tables whose planner statistics are older than their size: never analyzed (relpages 0) or
 * grown by a fifth since (plus 8 pages, so small tables are left alone). PostgreSQL's autovacuum
 * analyzes on the modifications it counts; PGlite flushes those counters too rarely to go by
 * (pg_stat_user_tables stays at 0 for minutes), so the table's size against the page count its
 * last analyze recorded stands in for them.
 */
const STALE_STATISTICS = `select c.relname from pg_class c
  where c.relnamespace = 'public'::regnamespace and c.relkind = 'r'
    and pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * 1.2 + 8
  order by c.relname`;

export function startEmbeddedVacuum(
  database: Pick<Database, 'exec' | 'queryRows'>,
  intervalMs: number,
  log?: Pick<Logger, 'info' | 'warn'>,
  analyzeCheckMs = 0,
): EmbeddedVacuum {
  let running: Promise<void> | null = null;
  let stopped = false;
  const pass = async () => {
    const started = performance.now();
    const rows = await database.queryRows(
      {
        name: 'embedded_vacuum_tables',
        text: `select tablename from pg_tables where schemaname = 'public' order by tablename`,
      },
      [],
    );
    let tables = 0;
    for (const [table] of rows) {
      if (stopped) return;
      await database.exec(`vacuum (analyze) "${String(table).replaceAll('"', '""')}"`);
      tables++;
    }
    log?.info(
      { tables, ms: Math.round(performance.now() - started) },
      'embedded database vacuumed (PGlite runs no autovacuum)',
    );
  };
  // Between vacuum passes, tables that grew are analyzed: a new data directory's tables are made
  // empty by the migrations, and until its first statistics the planner reads a whole account to
  // find 16 shipments by id (a batched read took 5.7 against 1.6 ms at 2,000 shipments,
  // docs/architecture.md). Each check is one catalog read; ANALYZE samples at most 30,000 rows.
  let analyzing: Promise<void> | null = null;
  const analyzeGrown = () => {
    analyzing ??= (async () => {
      const rows = await database.queryRows(
        { name: 'embedded_stale_statistics', text: STALE_STATISTICS },
        [],
      );
      const tables: string[] = [];
      for (const [table] of rows) {
        if (stopped || running) return;
        await database.exec(`analyze "${String(table).replaceAll('"', '""')}"`);
        tables.push(String(table));
      }
      if (tables.length) log?.info({ tables }, 'embedded database: grown tables analyzed');
    })()
      .catch((err) => log?.warn({ err }, 'embedded database analyze failed; tried again next check'))
      .finally(() => {
        analyzing = null;
      });
    return analyzing;
  };
  const runOnce = () => {
    running ??= pass()
      .catch((err) => log?.warn({ err }, 'embedded database vacuum failed; tried again next interval'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = intervalMs > 0 ? setInterval(() => void runOnce(), intervalMs) : null;
  timer?.unref();
  const checks = analyzeCheckMs > 0 ? setInterval(() => void analyzeGrown(), analyzeCheckMs) : null;
  checks?.unref();
  return {
    runOnce,
    analyzeGrown,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      if (checks) clearInterval(checks);
      await Promise.all([running, analyzing]);
    },
  };
}
