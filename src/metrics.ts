import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from './db/database.ts';
import { type QueueStats, queueStats } from './worker/queues.ts';

// Prometheus metrics of one process. Queue gauges are read from the database at scrape time, so
// any process (API or worker) reports the same, shared queue state.

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'route' | 'method' | 'status'>;
  carrierRequests: Counter<'scac' | 'outcome'>;
  carrierDuration: Histogram<'scac'>;
  lookupsAborted: Counter<'kind' | 'cause'>;
  webhookAttempts: Counter<'outcome'>;
  webhookLatency: Histogram;
}

export function createMetrics(database: Database): Metrics {
  const registry = new Registry();
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const carrierRequests = new Counter({
    name: 'carrier_lookups_total',
    help: 'Carrier look-ups by SCAC and outcome (found, not_found, temporary_failure, permanent_failure)',
    labelNames: ['scac', 'outcome'] as const,
    registers: [registry],
  });
  const carrierDuration = new Histogram({
    name: 'carrier_lookup_duration_seconds',
    help: 'Carrier look-up latency by SCAC (all pages of one look-up)',
    labelNames: ['scac'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const lookupsAborted = new Counter({
    name: 'lookups_aborted_total',
    help: 'Carrier and terminal look-ups cut short (retried later), by kind (carrier, terminal) and cause (lease: no answer within half of WORKER_LEASE_MS; shutdown)',
    labelNames: ['kind', 'cause'] as const,
    registers: [registry],
  });
  const webhookAttempts = new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome (succeeded, retry, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const webhookLatency = new Histogram({
    name: 'webhook_event_to_first_attempt_seconds',
    help: 'Time from a notification being recorded to its first delivery attempt',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  // The three queue gauges share one database read per scrape (registry.metrics() collects
  // gauges concurrently, so each awaits the same promise).
  let read: { at: number; rows: Promise<QueueStats[]> } | null = null;
  const queue = () => {
    if (!read || Date.now() - read.at > 500) {
      read = {
        at: Date.now(),
        rows: queueStats(database.db),
      };
    }
    return read.rows;
  };
  const queueGauge = (name: string, help: string, pick: (r: QueueStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        try {
          for (const r of await queue()) this.set({ kind: r.kind }, pick(r));
        } catch {
          // Reported by work_queue_scrape_ok.
        }
      },
    });
  queueGauge('work_due', 'Items due and not leased, by kind', (r) => r.due);
  queueGauge('work_leased', 'Items under a live lease, by kind', (r) => r.leased);
  queueGauge(
    'work_oldest_due_seconds',
    'Age of the oldest due item, by kind (0 when none)',
    (r) => r.oldest_due_seconds ?? 0,
  );
  new Gauge({
    name: 'work_queue_scrape_ok',
    help: '1 when the queue gauges could be read from the database',
    registers: [registry],
    async collect() {
      this.set(
        await queue().then(
          () => 1,
          () => 0,
        ),
      );
    },
  });
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database pool connections by state (total, idle, waiting clients)',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const s = database.poolStats();
      this.set({ state: 'total' }, s.total);
      this.set({ state: 'idle' }, s.idle);
      this.set({ state: 'waiting' }, s.waiting);
    },
  });
  return {
    registry,
    httpDuration,
    carrierRequests,
    carrierDuration,
    lookupsAborted,
    webhookAttempts,
    webhookLatency,
  };
}
