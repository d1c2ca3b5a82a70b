import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { createLogger } from './logging.ts';

/** Config + logger + migrated database: what every entry point (server, worker, CLI) starts with. */
export async function bootstrap(
  env = process.env,
  options: { logTo?: 'stdout' | 'stderr' } = {},
): Promise<{ config: Config; log: Logger; database: Database }> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = await createLogger(config.logLevel, options.logTo);
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
