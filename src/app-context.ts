import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { Metrics } from './metrics.ts';

/** What route modules receive: explicit dependencies, no globals. */
export interface AppContext {
  config: Config;
  database: Database;
  /** Origin for absolute links ('' = links are paths). */
  baseUrl: string;
  /** Wakes an in-process worker when new work was written (no-op in API-only processes). */
  /** Prometheus metrics of this process (GET /metrics); none in tests that do not need them. */
  metrics?: Metrics;
  /**
   * false: the hot reads build their bodies with the JavaScript serializers instead of in SQL
   * (src/shipments/sql-bodies/); the parity test compares both. Default true.
   */
  sqlBodies?: boolean;
  notifyWork?: (kind: 'tracking_request' | 'refresh' | 'webhook') => void;
}
