import type { Logger } from 'pino';
import { startAlertLoop } from './alerts/delivery/loop.ts';
import { smtpMailer } from './alerts/delivery/mailer.ts';
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
  /** The clock daily alert digests are due by (tests move it; default the real one). */
  alertNow?: () => Date;
  onAttempt?: DeliveryDeps['onAttempt'];
  onCarrierCall?: Parameters<typeof startEngine>[0]['onCarrierCall'];
  onLookupAborted?: Parameters<typeof startEngine>[0]['onLookupAborted'];
}

/** A worker process's loops: carrier monitoring, webhook delivery, documents and alert e-mails, sharing one lease owner id. */
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
    onLookupAborted: o.onLookupAborted,
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
  // Alert e-mails only when an SMTP server is configured; without one, rules are kept and nothing is sent.
  const smtp = o.config.alerts.smtp;
  const alerts = smtp
    ? startAlertLoop({
        db: o.database.db,
        config: o.config,
        log: o.log,
        owner: engine.owner,
        mailer: smtpMailer(smtp, o.config.alerts.concurrency),
        now: o.alertNow,
      })
    : null;
  return {
    owner: engine.owner,
    wake: (kind) => {
      engine.wake(kind);
      if (!kind) documents.wake();
      if (!kind) alerts?.wake();
    },
    async stop() {
      await Promise.all([engine.stop(), documents.stop(), alerts?.stop()]);
    },
  };
}
