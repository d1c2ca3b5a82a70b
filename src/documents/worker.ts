import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { type Loop, startLoop } from '../worker/loop.ts';
import { type ClaimedDocument, claimDueDocuments } from './claims.ts';
import { processDocument, stopReaders } from './process.ts';
import { createStorage } from './storage.ts';

// The document loop of a worker process: the same loop, lease and poll interval as the
// monitoring loops, with its own (small) concurrency since reading is CPU-bound.

export interface DocumentLoopOptions {
  database: Database;
  config: Config;
  log: Logger;
  owner: string;
  onWork?: (kind: 'webhook' | 'tracking_request') => void;
}

export function startDocumentLoop(o: DocumentLoopOptions): Loop {
  const storage = createStorage(o.config);
  const deps = { db: o.database.db, config: o.config, log: o.log, owner: o.owner, storage, onWork: o.onWork };
  // Reading a large scan takes a while: the lease is at least five minutes.
  const leaseMs = Math.max(o.config.worker.leaseMs, 300_000);
  const loop = startLoop<ClaimedDocument>({
    name: 'documents',
    concurrency: o.config.documents.concurrency,
    pollIntervalMs: o.config.worker.pollIntervalMs,
    claim: (n) => claimDueDocuments(o.database.db, o.owner, n, leaseMs),
    run: (d) => processDocument(deps, d),
    onError: (err, item) =>
      o.log.error(
        { err, item: (item as { id?: string } | null)?.id },
        'document run failed; retried when its lease expires',
      ),
  });
  return {
    wake: loop.wake,
    inFlight: loop.inFlight,
    async stop() {
      await loop.stop();
      await stopReaders().catch(() => {});
    },
  };
}
