import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { type Config, configOrExit, type Env } from './config.ts';
import { type Database, openPostgres } from './db/database.ts';
import { EmbeddedOpenError, EmbeddedOwnedError, openEmbedded } from './db/embedded.ts';
import { migrate } from './db/migrate.ts';
import { createLogger } from './logging.ts';

/**
 * Config + logger + migrated database: what every entry point (server, worker, CLI) starts with.
 * The configuration is the process environment with `overrides` (command-line flags) over it and
 * `defaults` under it (e.g. a quieter LOG_LEVEL for the CLI). `embeddedRole` says how to reach an
 * embedded database: the server owns DATA_DIR (refused if another process does), the CLI reaches
 * the running server or else opens the files itself.
 */
export async function bootstrap(
  overrides: Env = {},
  defaults: Env = {},
  options: { logTo?: 'stdout' | 'stderr'; embeddedRole?: 'server' | 'cli' } = {},
): Promise<{ config: Config; log: Logger; database: Database }> {
  const config = configOrExit(overrides, defaults);
  const log = await createLogger(config.logLevel, options.logTo);
  let database: Database;
  try {
    database = config.databaseUrl
      ? await openPostgres(config.databaseUrl, config.dbPoolSize, {
          log,
          preparedStatements: config.databasePreparedStatements,
          listenUrl: config.databaseListenUrl,
        })
      : await openEmbedded({
          dataDir: resolve(config.dataDir),
          role: options.embeddedRole ?? 'server',
          port: config.embeddedDbPort,
          waitMs: config.embeddedLockWaitMs,
          vacuumIntervalMs: config.embeddedVacuumIntervalMs,
          analyzeCheckMs: config.embeddedAnalyzeCheckMs,
          idleInTransactionMs: config.embeddedIdleInTransactionMs,
          statementTimeoutMs: config.embeddedStatementTimeoutMs,
          log,
        });
  } catch (err) {
    if (err instanceof EmbeddedOwnedError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(3);
    }
    if (err instanceof EmbeddedOpenError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const applied = await migrate(database);
  if (applied.length) log.info({ applied }, 'database migrated');
  return { config, log, database };
}
