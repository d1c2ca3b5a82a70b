import cluster from 'node:cluster';
import { flushCompileCache } from 'node:module';
import { parseArgs } from 'node:util';
import { configOrExit } from './config.ts';
import type { Engine } from './engine/start.ts';

// `npm start [-- --role api|worker|all] [--processes N]`.
//   api:    serves the HTTP API (N processes share the port through node:cluster)
//   worker: monitors carriers and delivers webhooks
//   all:    both (default); with --processes N the API runs in N child processes and this
//           process runs the worker.
let values: { role?: string; processes?: string };
try {
  ({ values } = parseArgs({
    options: { role: { type: 'string' }, processes: { type: 'string' } },
    allowPositionals: false,
  }));
} catch (err) {
  // A usage error, not a crash: no stack trace.
  process.stderr.write(
    `${(err as Error).message}\nUsage: npm start [-- --role api|worker|all] [--processes N]\n`,
  );
  process.exit(2);
}
// The flags override their variables (ROLE, API_PROCESSES); every value is validated by loadConfig,
// and any configuration error (CARRIERS_CONFIG's contents included) exits 2 before the database opens.
const flags: Record<string, string> = {};
if (values.role !== undefined) flags.ROLE = values.role;
if (values.processes !== undefined) flags.API_PROCESSES = values.processes;

const isApiChild = cluster.isWorker;
const overrides = isApiChild ? { ...flags, ROLE: 'api' } : flags;
// The configuration is checked before the service's modules load (they take most of a second):
// a bad value exits 2 at once. bootstrap() reads the same environment again.
configOrExit(overrides);
const [
  { ensureDefaultAccount, listAccounts },
  { buildApp, buildOpsServer },
  { bootstrap },
  { buildCarrierRegistry },
  { createMetrics },
  { buildTerminalDirectory },
  { startWorker },
  { startBanner },
] = await Promise.all([
  import('./accounts/service.ts'),
  import('./app.ts'),
  import('./bootstrap.ts'),
  import('./carriers/registry.ts'),
  import('./metrics.ts'),
  import('./terminals/registry.ts'),
  import('./worker-process.ts'),
  import('./start-banner.ts'),
]);
const { config, log, database } = await bootstrap(overrides);
const processes = isApiChild ? 1 : config.apiProcesses;
const carriers = buildCarrierRegistry(config.carriers);
// The sandbox terminal feed serves the sandbox line only while TEST is the built-in sandbox.
const terminals = buildTerminalDirectory(config.terminals, {
  sandbox: !config.carriers.some((c) => c.scac === 'TEST'),
});

const forkApi = processes > 1 && cluster.isPrimary && config.role !== 'worker';
const runApi = config.role !== 'worker' && !forkApi;
const runWorker = config.role !== 'api' && !isApiChild;

// First start on an empty database: make the service usable at once (never in forked children);
// a later start says how to make a new key.
const created = !isApiChild && config.role !== 'worker' ? await ensureDefaultAccount(database.db) : null;
const origin = config.publicBaseUrl ?? `http://localhost:${config.port}`;
if (!isApiChild && config.role !== 'worker') {
  process.stdout.write(
    startBanner(origin, created ? { created } : { accounts: await listAccounts(database.db) }),
  );
}

const metrics = createMetrics(database);
let engine: Engine | undefined;
if (runWorker) {
  log.info({ carriers: [...carriers.keys()] }, 'carrier connections');
  engine = startWorker({
    database,
    config,
    log,
    carriers,
    terminals,
    onCarrierCall: (scac, outcome, seconds) => {
      metrics.carrierRequests.inc({ scac, outcome });
      metrics.carrierDuration.observe({ scac }, seconds);
    },
    onLookupAborted: (kind, cause) => metrics.lookupsAborted.inc({ kind, cause }),
    onAttempt: (outcome, _event, latencyMs) => {
      metrics.webhookAttempts.inc({ outcome });
      if (latencyMs !== null) metrics.webhookLatency.observe(latencyMs / 1000);
    },
  });
}

// Inbound e-mail is taken by the process that runs the worker, when SMTP_PORT is set; its server and
// parser (smtp-server, mailparser: ~9 MB of heap, ~16 MB resident) load only then.
const smtp =
  runWorker && config.mail.smtpPort !== null
    ? await (await import('./mail/smtp.ts')).startSmtpServer({ database, config, log })
    : undefined;

if (forkApi) {
  for (let i = 0; i < processes; i++) cluster.fork({ ROLE: 'api' });
  cluster.on('exit', (w, code, signal) => {
    if (!stopping) {
      log.error({ pid: w.process.pid, code, signal }, 'API process died; starting another');
      cluster.fork({ ROLE: 'api' });
    }
  });
}

const ctx = {
  config,
  database,
  metrics,
  baseUrl: config.publicBaseUrl ?? '',
  notifyWork: engine ? (kind: Parameters<Engine['wake']>[0]) => engine.wake(kind) : undefined,
};
const app = runApi ? await buildApp(ctx, { logger: log }) : undefined;
if (app) await app.listen({ port: config.port, host: config.host });
// A worker-only process still answers /healthz, /readyz and /metrics, on PORT (role worker) or
// METRICS_PORT (the worker beside forked API processes).
const opsPort = config.role === 'worker' ? config.port : forkApi ? config.metricsPort : null;
const ops = opsPort !== null ? await buildOpsServer(config, database, metrics) : undefined;
if (ops && opsPort !== null) await ops.listen({ port: opsPort, host: config.host });
log.info(
  { role: isApiChild ? 'api (cluster child)' : config.role, processes },
  config.role === 'worker' ? 'started' : `started: console at ${origin}/, API at ${origin}/v2`,
);
// When NODE_COMPILE_CACHE is set, write what this start compiled now rather than only at exit, so a
// process that is killed still leaves the next start its cache (nothing happens without it).
flushCompileCache();

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down: finishing in-flight requests and work');
  const timer = setTimeout(() => process.exit(1), 25_000).unref();
  try {
    if (forkApi) {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      await new Promise<void>((resolve) => {
        const check = () =>
          Object.keys(cluster.workers ?? {}).length === 0 ? resolve() : setTimeout(check, 50);
        check();
      });
    }
    await app?.close();
    await ops?.close();
    await smtp?.close();
    await engine?.stop();
    await database.close();
  } finally {
    clearTimeout(timer);
  }
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
