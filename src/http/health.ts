import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';

export function healthRoutes(database: Database) {
  return async (app: FastifyInstance) => {
    app.get('/healthz', { config: { auth: false }, schema: { hide: true } }, async () => ({ status: 'ok' }));
    app.get('/readyz', { config: { auth: false }, schema: { hide: true } }, async (_request, reply) => {
      try {
        await sql`select 1`.execute(database.db);
        return { status: 'ready', database: 'ok' };
      } catch {
        return reply.code(503).send({ status: 'unavailable', database: 'unreachable' });
      }
    });
  };
}
