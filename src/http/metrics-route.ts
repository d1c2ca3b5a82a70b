import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import { unauthorized } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

/** GET /metrics in Prometheus text format: off (404), open, or behind a bearer token. */
export function metricsRoute(config: Config, metrics: Metrics) {
  return async (app: FastifyInstance) => {
    if (config.metrics.mode === 'off') return;
    const token = config.metrics.token ? Buffer.from(`Bearer ${config.metrics.token}`) : null;
    app.get('/metrics', { config: { auth: false }, schema: { hide: true } }, async (request, reply) => {
      if (config.metrics.mode === 'token') {
        const given = Buffer.from(request.headers.authorization ?? '');
        if (!token || given.length !== token.length || !timingSafeEqual(given, token)) {
          return reply
            .code(401)
            .header('www-authenticate', 'Bearer')
            .send({ errors: unauthorized('Send Authorization: Bearer <METRICS_TOKEN>.').errors });
        }
      }
      reply.type(metrics.registry.contentType);
      return metrics.registry.metrics();
    });
  };
}
