import pino from 'pino';
import type { CarrierAdapter } from '../../src/carriers/types.ts';
import type { Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startWorker } from '../../src/worker-process.ts';

/** Engine timings shrunk to milliseconds so whole lifecycles run in a test. */
export const FAST_ENGINE_ENV: Record<string, string> = {
  WORKER_POLL_INTERVAL_MS: '25',
  WORKER_LEASE_MS: '5000',
  TRACKING_RETRY_BASE_MS: '20',
  AWAITING_MANIFEST_INTERVAL_MS: '50',
  AWAITING_MANIFEST_MAX_MS: '100000',
  REFRESH_INTERVAL_MS: '100',
  REFRESH_NEAR_ARRIVAL_MS: '50',
  RATE_LIMIT_CREATE_PER_MINUTE: '10000',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
};

export function startTestEngine(
  database: Database,
  config: Config,
  carriers: ReadonlyMap<string, CarrierAdapter>,
  extra: Partial<Parameters<typeof startWorker>[0]> = {},
): Engine {
  return startWorker({ database, config, log: pino({ level: 'silent' }), carriers, ...extra });
}

/** Polls until `fn` returns a truthy value; fails with the last value seen after the time-out. */
export async function eventually<T>(
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < until) {
    const v = await fn();
    if (v) return v;
    last = v;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}
