import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import type { CarrierAdapter } from './carrier.ts';
import type { AbortCause } from './lease-bound.ts';
import type { TerminalDirectory } from './terminal.ts';

/** What one engine worker runs with (start.ts builds it; tests build their own). */
export interface EngineDeps {
  db: Kysely<DB>;
  carriers: ReadonlyMap<string, CarrierAdapter>;
  /** Terminal connections (none: no terminal checks). */
  terminals?: TerminalDirectory;
  config: Config;
  log: Logger;
  /** Lease owner id of this worker. */
  owner: string;
  now?: () => Date;
  /** Called after a transaction that recorded domain events commits (wakes webhook delivery). */
  onDomainEvents?: () => void;
  /** Metrics hook for carrier calls. */
  onCarrierCall?: (scac: string, outcome: string, seconds: number) => void;
  /** Aborts every look-up in flight: the worker is stopping. */
  shutdown?: AbortSignal;
  /** Metrics hook: a look-up cut short at half its lease or by shutdown (lease-bound.ts). */
  onLookupAborted?: (kind: 'carrier' | 'terminal', cause: AbortCause) => void;
}
