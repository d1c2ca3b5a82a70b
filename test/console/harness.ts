import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { Engine as StorageEngine } from '../../src/db/database.ts';
import type { Engine } from '../../src/engine/start.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FAST_ENGINE_ENV, startTestEngine } from '../helpers/engine.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { type Tracked, trackSandbox } from '../helpers/tracked.ts';

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumMissing = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM}: install it with "apt-get install -y chromium" to run the console browser tests.`;

export function launchChromium(): Promise<Browser> {
  // Playwright gives every launch a fresh temporary profile (user-data-dir).
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ConsoleFixture {
  t: TestApp;
  worker: Engine;
  receiver: Awaited<ReturnType<typeof startReceiver>>;
  shipment: Tracked;
  containerNumbers: string[];
  close(): Promise<void>;
}

/**
 * A real server with one tracked sandbox shipment, a worker (carrier look-ups and webhook
 * deliveries) and a local webhook receiver. Engine timings are fast; the rate limits are the
 * defaults, so a normal walk through the console must stay within them.
 */
export async function startConsoleFixture(engine: StorageEngine): Promise<ConsoleFixture> {
  // Uploaded documents go to a directory of this fixture's own.
  const dataDir = mkdtempSync(join(tmpdir(), 'console-'));
  const t = await startTestApp(engine, {
    ...FAST_ENGINE_ENV,
    DATA_DIR: dataDir,
    RATE_LIMIT_DEFAULT_PER_MINUTE: '100',
    RATE_LIMIT_CREATE_PER_MINUTE: '100',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWLIST: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: '1s',
  });
  const worker = startTestEngine(t.database, t.config, buildCarrierRegistry([]));
  const receiver = await startReceiver();
  const shipment = await trackSandbox(t, worker, 'TEST-TR-SUCCEEDED');
  const rows = await t.database.db
    .selectFrom('containers')
    .select('number')
    .where('id', 'in', shipment.containerIds)
    .orderBy('number')
    .execute();
  return {
    t,
    worker,
    receiver,
    shipment,
    containerNumbers: rows.map((r) => r.number),
    async close() {
      await worker.stop();
      await receiver.close();
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
