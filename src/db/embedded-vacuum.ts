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
}

export function startEmbeddedVacuum(
  database: Pick<Database, 'exec' | 'queryRows'>,
  intervalMs: number,
  log?: Pick<Logger, 'info' | 'warn'>,
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
  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
