import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { authenticate } from './accounts/service.ts';
import { buildApp } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import { injectCaller } from './mcp/api.ts';
import { createMcpServer } from './mcp/server.ts';

// `npm run --silent mcp`: the MCP server over stdio, for agents that start their tools as local
// programs. stdout carries only JSON-RPC; every log line goes to stderr.
//
// It builds the API in this process (no port is opened) against the configured database and
// acts with TRACKER_API_KEY. With DATABASE_URL it shares the PostgreSQL server with the running
// service. With embedded PGlite it reaches the running server's database through its socket, as
// `npm run cli` does; with no server running it opens DATA_DIR itself under the owner lock (a
// server started meanwhile waits for it, up to EMBEDDED_LOCK_WAIT_MS).
// It runs no worker: a number tracked here is picked up by the service's worker.

const { config, log, database } = await bootstrap({}, {}, { logTo: 'stderr', embeddedRole: 'cli' });

async function fail(message: string): Promise<never> {
  process.stderr.write(`${message}\n`);
  await database.close();
  process.exit(2);
}

const key = config.mcpApiKey;
if (!key)
  await fail('Set TRACKER_API_KEY to the API key the MCP server acts with (npm run cli -- api-keys create).');
const auth = await authenticate(database.db, key!);
if (!auth.ok) await fail(`TRACKER_API_KEY was refused (${auth.reason}).`);

const app = await buildApp({ config, database, baseUrl: config.publicBaseUrl ?? '' }, { logger: log });
await app.ready();
const server = createMcpServer(injectCaller(app, key!), log);
const transport = new StdioServerTransport();

let closing = false;
async function shutdown() {
  if (closing) return;
  closing = true;
  await server.close().catch(() => {});
  await app.close().catch(() => {});
  await database.close().catch(() => {});
  process.exit(0);
}
transport.onclose = () => void shutdown();
process.stdin.on('end', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());

await server.connect(transport);
log.info({ account: auth.ok ? auth.accountId : null }, 'MCP server ready on stdio');
