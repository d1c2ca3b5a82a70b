import type { Logger } from 'pino';
import type { CarrierAdapter } from './carriers/types.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { startDocumentLoop } from './documents/worker.ts';
import { type Engine, startEngine } from './engine/start.ts';
import type { TerminalDirectory } from './engine/terminal.ts';
import type { AddressPolicy } from './webhooks/delivery/address-guard.ts';
import type { DeliveryDeps } from './webhooks/delivery/deps.ts';
import { startDeliveryLoop } from './webhooks/delivery/loop.ts';
import { getAddressPolicy } from './webhooks/delivery/outbound.ts';

export interface WorkerOptions {
  database: Database;
  config: Config;
  log: Logger;
  carriers: ReadonlyMap<string, CarrierAdapter>;
  /** Terminal connections (terminals/registry.ts); none: no terminal checks. */
  terminals?: TerminalDirectory;
  owner?: string;
  policy?: AddressPolicy;
  now?: () => Date;
  onAttempt?: DeliveryDeps['onAttempt'];
  onCarrierCall?: Parameters<typeof startEngine>[0]['onCarrierCall'];
}

/** A worker process's loops: carrier monitoring, webhook delivery and documents, sharing one lease owner id. */
export function startWorker(o: WorkerOptions): Engine {
  const policy = o.policy ?? getAddressPolicy(o.config);
  const engine = startEngine({
    database: o.database,
    config: o.config,
    log: o.log,
    carriers: o.carriers,
    terminals: o.terminals,
    owner: o.owner,
    now: o.now,
    onCarrierCall: o.onCarrierCall,
    extraLoops: (owner) => [
      {
        kind: 'webhook',
        loop: startDeliveryLoop({
          db: o.database.db,
          config: o.config,
          log: o.log,
          owner,
          policy,
          now: o.now,
          onAttempt: o.onAttempt,
        }),
      },
    ],
  });
  const documents = startDocumentLoop({
    database: o.database,
    config: o.config,
    log: o.log,
    owner: engine.owner,
    onWork: (kind) => engine.wake(kind),
  });
  return {
    owner: engine.owner,
    wake: (kind) => {
      engine.wake(kind);
      if (!kind) documents.wake();
    },
    async stop() {
      await Promise.all([engine.stop(), documents.stop()]);
    },
  };
}
