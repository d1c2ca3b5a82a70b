import { resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import { type Config, ConfigError, type Env, environment, loadConfig } from './config.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';

/**
 * Config + logger + migrated database: what every entry point (server, worker, CLI) starts with.
 * The configuration is the process environment with `overrides` (command-line flags) over it and
 * `defaults` under it (e.g. a quieter LOG_LEVEL for the CLI).
 */
export async function bootstrap(
  overrides: Env = {},
  defaults: Env = {},
): Promise<{ config: Config; log: Logger; database: Database }> {
  let config: Config;
  try {
    config = loadConfig(environment(overrides, defaults));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = pino({ level: config.logLevel });
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: resolve(config.dataDir),
    poolSize: config.dbPoolSize,
    log,
  });
  const applied = await migrate(database);
  if (applied.length) log.info({ applied }, 'database migrated');
  return { config, log, database };
}
