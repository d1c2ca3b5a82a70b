import type { FastifyInstance } from 'fastify';
import { authenticateAndCharge } from '../accounts/service.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ApiError, tooManyRequests, unauthorized } from './errors.ts';
import type { Bucket } from './rate-limit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    accountId: string;
  }
  interface FastifyContextConfig {
    /** false for public routes (health, docs); every /v2 route authenticates. */
    auth?: boolean;
    /** Rate-limit bucket; `default` when unset. */
    bucket?: Bucket;
  }
}

const SCHEME = /^Token\s+(\S+)\s*$/i;

const MESSAGES = {
  missing: 'Send your API key as "Authorization: Token <key>".',
  malformed: 'The Authorization header must be "Token <key>" with a key issued by this service.',
  unknown: 'The API key is not valid.',
  revoked: 'The API key has been revoked.',
} as const;

const BUCKET_NAMES: Record<Bucket, string> = {
  create: 'create tracking requests',
  default: 'API requests',
  infer: 'infer number',
  refresh: 'container refresh',
};

/** Authenticates every route whose config does not say `auth: false`, then applies its rate limit. */
export function registerAuth(app: FastifyInstance, database: Database, config: Config): void {
  app.decorateRequest('accountId', '');
  app.addHook('onRequest', async (request, reply) => {
    const routeConfig = request.routeOptions.config;
    const url = request.routeOptions.url;
    if (routeConfig.auth === false || !url || !url.startsWith('/v2/')) return;
    const header = request.headers.authorization;
    if (!header) throw unauthorized(MESSAGES.missing);
    const m = SCHEME.exec(header);
    if (!m) throw unauthorized(MESSAGES.malformed);
    const bucket = routeConfig.bucket ?? 'default';
    const limit = config.rateLimits[bucket];
    const result = await authenticateAndCharge(
      database.db,
      m[1]!,
      bucket,
      limit,
      config.rateLimits.windowSeconds,
    );
    if (!result.ok) throw unauthorized(MESSAGES[result.reason]);
    request.accountId = result.accountId;
    const taken = result.left;
    reply.header('x-ratelimit-limit', String(limit));
    if (taken < 0) {
      reply.header('x-ratelimit-remaining', '0');
      throw tooManyRequests(
        `You've hit the ${BUCKET_NAMES[bucket]} limit of ${limit} per minute. Please try again in ${-taken} seconds.`,
        -taken,
      );
    }
    reply.header('x-ratelimit-remaining', String(taken));
  });
}

export { ApiError };
