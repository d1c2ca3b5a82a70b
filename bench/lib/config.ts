// Benchmark settings, all from the environment (see docs/benchmarks.md).

export interface BenchConfig {
  adminUrl: string;
  durationS: number;
  warmupS: number;
  connections: number;
  large: boolean;
  largeShipments: number;
  largeEventsPerContainer: number;
  listShipments: number;
  engineShipments: number;
  workerConcurrency: number;
  workerPoolSize: number;
  webhookRate: number;
  webhookConcurrency: number;
  profile: boolean;
  /** Shipments of the traffic scenarios' account (10,000; 100,000 in large mode). */
  trafficShipments: number;
  /** Shipments of the traffic scenarios' embedded PGlite database (its seeding is ~10x slower). */
  trafficPgliteShipments: number;
  /** Seeded shipments the throughput set's reads draw from, per engine. */
  throughputShipments: number;
  /** Creates of the throughput set's creates-only phase (journeys per second, CPU per journey). */
  throughputJourneys: number;
  /** Engines of the throughput set: postgres, pglite (BENCH_THROUGHPUT_ENGINES, comma-separated). */
  throughputEngines: string[];
  /** Shipments of the export scenario's PostgreSQL account (100,000). */
  exportShipments: number;
  /** Shipments of the export scenario's embedded PGlite account (10,000: it seeds ~10x slower). */
  exportPgliteShipments: number;
  /** The API's --max-old-space-size during the export scenario (160, as `npm start`). */
  exportHeapMb: number;
  /** Small-host scenario: seconds of idle after the load before the idle RSS is taken. */
  smallHostIdleS: number;
  /** Small-host scenario: engines (pglite, postgres; BENCH_SMALL_HOST_ENGINES, comma-separated). */
  smallHostEngines: string[];
  /** Small-host scenario: `;`-separated node flag sets to compare; `shipped` = `npm start`. */
  smallHostFlags: string;
  /** Scenario groups to run; empty = all. */
  only: Set<string>;
}

const num = (env: NodeJS.ProcessEnv, name: string, def: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
};

/** `--only a,b` on the command line (`npm run bench -- --only traffic`), else BENCH_ONLY. */
function onlyGroups(env: NodeJS.ProcessEnv, argv: readonly string[]): string {
  const i = argv.indexOf('--only');
  if (i >= 0) return argv[i + 1] ?? '';
  const eq = argv.find((a) => a.startsWith('--only='));
  return eq ? eq.slice('--only='.length) : (env.BENCH_ONLY ?? '');
}

export function benchConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv.slice(2),
): BenchConfig {
  const large =
    ['1', 'true', 'yes'].includes((env.BENCH_LARGE ?? '').toLowerCase()) || argv.includes('--large');
  return {
    adminUrl: env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test',
    durationS: num(env, 'BENCH_DURATION_S', 10),
    warmupS: num(env, 'BENCH_WARMUP_S', 2),
    connections: num(env, 'BENCH_CONNECTIONS', 50),
    large,
    largeShipments: num(env, 'BENCH_LARGE_SHIPMENTS', 100_000),
    largeEventsPerContainer: num(env, 'BENCH_LARGE_EVENTS_PER_CONTAINER', 34),
    listShipments: num(env, 'BENCH_LIST_SHIPMENTS', 100_000),
    engineShipments: num(env, 'BENCH_ENGINE_SHIPMENTS', 4000),
    workerConcurrency: num(env, 'BENCH_WORKER_CONCURRENCY', 16),
    workerPoolSize: num(env, 'BENCH_WORKER_DB_POOL_SIZE', 10),
    webhookRate: num(env, 'BENCH_WEBHOOK_RATE', 1500),
    webhookConcurrency: num(env, 'BENCH_WEBHOOK_PER_ENDPOINT_CONCURRENCY', 64),
    profile: ['1', 'true', 'yes'].includes((env.BENCH_PROFILE ?? '').toLowerCase()),
    trafficShipments: num(env, 'BENCH_TRAFFIC_SHIPMENTS', large ? 100_000 : 10_000),
    trafficPgliteShipments: num(env, 'BENCH_TRAFFIC_PGLITE_SHIPMENTS', 2_000),
    throughputShipments: num(env, 'BENCH_THROUGHPUT_SHIPMENTS', 1_000),
    throughputJourneys: num(env, 'BENCH_THROUGHPUT_JOURNEYS', 300),
    throughputEngines: (env.BENCH_THROUGHPUT_ENGINES || 'postgres,pglite').split(',').map((s) => s.trim()),
    exportShipments: num(env, 'BENCH_EXPORT_SHIPMENTS', 100_000),
    exportPgliteShipments: num(env, 'BENCH_EXPORT_PGLITE_SHIPMENTS', 10_000),
    exportHeapMb: num(env, 'BENCH_EXPORT_HEAP_MB', 160),
    smallHostIdleS: num(env, 'BENCH_SMALL_HOST_IDLE_S', 20),
    smallHostEngines: (env.BENCH_SMALL_HOST_ENGINES || 'pglite,postgres').split(',').map((s) => s.trim()),
    smallHostFlags: env.BENCH_SMALL_HOST_FLAGS || 'shipped',
    only: new Set(
      onlyGroups(env, argv)
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  };
}
