import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import type { DB } from '../../db/schema.ts';
import type { NotificationRow } from '../notifications/render.ts';
import type { AddressPolicy } from './address-guard.ts';

/** What webhook delivery needs from the worker process that runs it. */
export interface DeliveryDeps {
  db: Kysely<DB>;
  config: Config;
  log: Logger;
  owner: string;
  policy: AddressPolicy;
  /** Renders the bodies of first attempts, a claim at a time (renderRows by default). */
  render?: (db: Kysely<DB>, rows: NotificationRow[]) => Promise<Map<string, string>>;
  now?: () => Date;
  onAttempt?: (
    outcome: 'succeeded' | 'failed' | 'retry',
    event: string,
    firstAttemptLatencyMs: number | null,
  ) => void;
}
