import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { isConnectionError } from '../db/connection-errors.ts';
import type { Database } from '../db/database.ts';
import { type Loop, startLoop, workerId } from '../worker/loop.ts';
import type { CarrierAdapter } from './carrier.ts';
import { type ClaimedRequest, type ClaimedShipment, claimDueRequests, claimDueShipments } from './claims.ts';
import type { EngineDeps } from './deps.ts';
import { processShipmentRefresh } from './refresh.ts';
import { processTrackingRequest } from './request.ts';
import type { TerminalDirectory } from './terminal.ts';
import { type ClaimedCheck, claimDueChecks, processTerminalCheck } from './terminal-check.ts';

export interface Engine {
  owner: string;
  wake(kind?: 'tracking_request' | 'refresh' | 'webhook'): void;
  stop(): Promise<void>;
}

export interface EngineOptions {
  database: Database;
  config: Config;
  log: Logger;
  carriers: ReadonlyMap<string, CarrierAdapter>;
  /** Terminal connections; without them no terminal checks run. */
  terminals?: TerminalDirectory;
  now?: () => Date;
  owner?: string;
  /** Extra loops that share this worker process (webhook delivery). */
  extraLoops?: (owner: string) => Array<{ kind: 'webhook'; loop: Loop }>;
  onDomainEvents?: () => void;
  onCarrierCall?: EngineDeps['onCarrierCall'];
  onLookupAborted?: EngineDeps['onLookupAborted'];
}

/** The monitoring worker: tracking-request attempts and shipment refreshes, leased from the database. */
export function startEngine(o: EngineOptions): Engine {
  const owner = o.owner ?? workerId();
  const w = o.config.worker;
  const extra = o.extraLoops?.(owner) ?? [];
  // Stopping aborts look-ups in flight (retried later) rather than waiting for a slow carrier.
  const stopping = new AbortController();
  const deps: EngineDeps = {
    db: o.database.db,
    carriers: o.carriers,
    terminals: o.terminals,
    config: o.config,
    log: o.log,
    owner,
    now: o.now,
    onCarrierCall: o.onCarrierCall,
    shutdown: stopping.signal,
    onLookupAborted: o.onLookupAborted,
    onDomainEvents: () => {
      for (const e of extra) e.loop.wake();
      o.onDomainEvents?.();
    },
  };
  const onError = (what: string) => (err: unknown, item: unknown) => {
    const id = (item as { id?: string } | null)?.id;
    // Connection loss is an expected, transient event: one line without a stack, and the loop backs off.
    if (isConnectionError(err))
      o.log.warn(
        { err: { message: (err as Error).message, code: (err as { code?: string }).code }, item: id },
        item
          ? `${what} interrupted: database unavailable; retried when its lease expires`
          : 'database unavailable; claims back off',
      );
    else o.log.error({ err, item: id }, `${what} failed; it is retried when its lease expires`);
  };
  const requests = startLoop<ClaimedRequest>({
    name: 'tracking_requests',
    concurrency: w.concurrency,
    pollIntervalMs: w.pollIntervalMs,
    claim: (n) => claimDueRequests(o.database.db, owner, n, w.leaseMs),
    run: (tr) => processTrackingRequest(deps, tr),
    onError: onError('tracking request attempt'),
  });
  const refreshes = startLoop<ClaimedShipment>({
    name: 'shipment_refreshes',
    concurrency: w.concurrency,
    pollIntervalMs: w.pollIntervalMs,
    claim: (n) => claimDueShipments(o.database.db, owner, n, w.leaseMs),
    run: (s) => processShipmentRefresh(deps, s),
    onError: onError('shipment refresh'),
  });
  const terminalDir = o.terminals;
  const checks = terminalDir
    ? startLoop<ClaimedCheck>({
        name: 'terminal_checks',
        concurrency: w.concurrency,
        // Checks are due at most every TERMINAL_CHECK_INTERVAL_MS: looking for due ones a few times
        // per interval (at most every 30 s) is enough, and spares the claim's scan.
        pollIntervalMs: Math.max(w.pollIntervalMs, Math.min(o.config.terminalCheckIntervalMs / 4, 30_000)),
        claim: (n) => claimDueChecks(o.database.db, terminalDir, n, w.leaseMs),
        run: (c) => processTerminalCheck(deps, c),
        onError: onError('terminal check'),
      })
    : null;
  return {
    owner,
    wake(kind) {
      if (!kind || kind === 'tracking_request') requests.wake();
      if (!kind || kind === 'refresh') {
        refreshes.wake();
        checks?.wake();
      }
      if (!kind || kind === 'webhook') for (const e of extra) e.loop.wake();
    },
    async stop() {
      stopping.abort();
      await Promise.all([
        requests.stop(),
        refreshes.stop(),
        ...(checks ? [checks.stop()] : []),
        ...extra.map((e) => e.loop.stop()),
      ]);
    },
  };
}
