import { parseArgs } from 'node:util';
import { countAccounts, createAccount } from './accounts/service.ts';
import { buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import { CarrierConfigError, loadCarriersConfig } from './carriers/config.ts';
import { buildCarrierRegistry } from './carriers/registry.ts';
import type { Engine } from './engine/start.ts';
import { startWorker } from './worker.ts';

// `npm start [-- --role api|worker|all]`: serves the API and/or runs the background worker.
const { values } = parseArgs({ options: { role: { type: 'string' } }, allowPositionals: false });
if (values.role) process.env.ROLE = values.role;

const { config, log, database } = await bootstrap();

let carriers: ReturnType<typeof buildCarrierRegistry>;
try {
  carriers = buildCarrierRegistry(loadCarriersConfig(process.env));
} catch (err) {
  if (err instanceof CarrierConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  throw err;
}
log.info({ carriers: [...carriers.keys()] }, 'carrier connections');

const runApi = config.role !== 'worker';
const runWorker = config.role !== 'api';

// First start on an empty database: make the service usable at once.
if (runApi && (await countAccounts(database.db)) === 0) {
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

let engine: Engine | undefined;
if (runWorker) engine = startWorker({ database, config, log, carriers });

const ctx = {
  config,
  database,
  baseUrl: config.publicBaseUrl ?? '',
  notifyWork: engine ? (kind: Parameters<Engine['wake']>[0]) => engine.wake(kind) : undefined,
};
const app = runApi ? await buildApp(ctx, { logger: log }) : undefined;
if (app) await app.listen({ port: config.port, host: config.host });
log.info({ role: config.role }, 'started');

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down: finishing in-flight requests and work');
  const timer = setTimeout(() => process.exit(1), 25_000).unref();
  try {
    await app?.close();
    await engine?.stop();
    await database.close();
  } finally {
    clearTimeout(timer);
  }
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
