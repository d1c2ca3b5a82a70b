import { parseArgs } from 'node:util';
import { countAccounts, createAccount } from './accounts/service.ts';
import { buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';

// `npm start [-- --role api|worker|all]`: serves the API and/or runs the background worker.
const { values } = parseArgs({ options: { role: { type: 'string' } }, allowPositionals: false });
if (values.role) process.env.ROLE = values.role;

const { config, log, database } = await bootstrap();

// First start on an empty database: make the service usable at once.
if ((await countAccounts(database.db)) === 0) {
  const { account, apiKey } = await createAccount(database.db, 'default');
  const origin = `http://localhost:${config.port}`;
  process.stdout.write(
    [
      '',
      'Created the default account. Its API key is shown once; keep it:',
      '',
      `  account: ${account.id}`,
      `  api key: ${apiKey}`,
      '',
      `  API:  ${origin}/v2   (Authorization: Token <key>)`,
      `  Docs: ${origin}/docs`,
      '',
    ].join('\n'),
  );
}

const ctx = { config, database, baseUrl: config.publicBaseUrl ?? '' };
const app = await buildApp(ctx, { logger: log });
await app.listen({ port: config.port, host: config.host });

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down: finishing in-flight requests');
  const timer = setTimeout(() => process.exit(1), 25_000).unref();
  try {
    await app.close();
    await database.close();
  } finally {
    clearTimeout(timer);
  }
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
