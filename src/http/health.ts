import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

// A load balancer or orchestrator asks /readyz whether to send traffic here: 503 while the
// database cannot answer (failover, restart, a pool stuck on a dead server), 200 again as soon as
// it can. /healthz only says the process is alive: connection loss never makes it fail, since the
// process recovers by itself and restarting it would not help.

/** Longer than any healthy `select 1`, shorter than a probe's usual time-out. */
const READY_TIMEOUT_MS = 2000;

export function healthRoutes(database: Database) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { config: { auth: false }, schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { config: { auth: false }, schema: { hide: true } }, async (_request, reply) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          sql`select 1`.execute(database.db),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), READY_TIMEOUT_MS);
          }),
        ]);
        return { status: 'ready', database: 'ok' };
      } catch {
        return reply
          .code(503)
          .header('retry-after', '2')
          .send({ status: 'unavailable', database: 'unreachable' });
      } finally {
        clearTimeout(timer);
      }
    });
  };
}
