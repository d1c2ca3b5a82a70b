import { resolve } from 'node:path';
import { ConfigError, loadConfig } from '../config.ts';
import { runningServerUrl } from '../db/embedded.ts';

/**
 * `db url`: PostgreSQL's URL as configured, or the running server's embedded database found from
 * DATA_DIR alone. Never opens the files (that would make this command the owner).
 */
export async function printDbUrl(): Promise<never> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  if (config.databaseUrl) {
    process.stdout.write(`${config.databaseUrl}\n`);
    process.exit(0);
  }
  const dataDir = resolve(config.dataDir);
  const url = await runningServerUrl(dataDir);
  if (!url) {
    process.stderr.write(
      `No running server serves the embedded database in ${dataDir}; start it with \`npm start\` (same DATA_DIR).\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${url}\n`);
  process.exit(0);
}
