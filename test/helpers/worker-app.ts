import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine as StorageEngine } from '../../src/db/database.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp } from './app.ts';
import { FAST_ENGINE_ENV, startTestEngine } from './engine.ts';

/** Webhooks may target plain-HTTP receivers on loopback (test/helpers/receiver.ts). */
export const LOOPBACK_WEBHOOKS = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWLIST: '127.0.0.0/8' };

export interface WorkerApp {
  t: TestApp;
  /** An engine worker with no carrier connection configured (only the built-in sandbox). */
  worker: Engine;
  /** Stops the worker, then the app. */
  close(): Promise<void>;
}

/** The API and one worker on the same fresh database, with engine timings in milliseconds. */
export async function startWorkerApp(
  storage: StorageEngine,
  env: Record<string, string> = {},
): Promise<WorkerApp> {
  const t = await startTestApp(storage, { ...FAST_ENGINE_ENV, ...env });
  const worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
  return {
    t,
    worker,
    async close() {
      await worker.stop();
      await t.close();
    },
  };
}
