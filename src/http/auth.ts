import type { FastifyInstance } from 'fastify';
import type { KeyCache } from '../accounts/key-cache.ts';
import { authenticateAndCharge } from '../accounts/service.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { ApiError, tooManyRequests, unauthorized } from '../errors.ts';
import type { AuthFailureLimiter } from './auth-failures.ts';
import { AUTH_MESSAGES, keyFromHeader } from './auth-header.ts';
import type { Bucket } from './rate-limit.ts';
import type { RateLimiter } from './rate-limiter.ts';

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

const BUCKET_NAMES: Record<Bucket, string> = {
  create: 'create tracking requests',
  default: 'API requests',
  infer: 'infer number',
  refresh: 'container refresh',
};

/**
 * Authenticates every route whose config does not say `auth: false`, then applies its rate limit.
 * A key this process has already verified, on an account far from its limit, costs no database
 * round trip (key-cache.ts, rate-limiter.ts); anything else is one statement (key + limit).
 */
export function registerAuth(
  app: FastifyInstance,
  database: Database,
  config: Config,
  fast: { keys: KeyCache; limiter: RateLimiter; failures: AuthFailureLimiter },
): void {
  const { failures } = fast;
  const blocked = (seconds: number) =>
    tooManyRequests(
      `Too many failed authentications from this address. Please try again in ${seconds} seconds.`,
      seconds,
    );
  app.decorateRequest('accountId', '');
  app.addHook('onRequest', async (request, reply) => {
    const routeConfig = request.routeOptions.config;
    const url = request.routeOptions.url;
    if (routeConfig.auth === false || !url || !url.startsWith('/v2/')) return;
    const header = request.headers.authorization;
    if (!header) throw unauthorized(AUTH_MESSAGES.missing);
    const address = request.ip;
    const wait = failures.blockedFor(address);
    const key = keyFromHeader(header);
    if (!key) {
      if (wait > 0) throw blocked(wait);
      failures.fail(address);
      throw unauthorized(AUTH_MESSAGES.malformed);
    }
    const bucket = routeConfig.bucket ?? 'default';
    const limit = config.rateLimits[bucket];
    const known = fast.keys.get(key);
    const local = known ? fast.limiter.takeLocal(known.accountId, bucket) : null;
    if (known && local !== null) {
      request.accountId = known.accountId;
      reply.header('x-ratelimit-limit', String(limit));
      reply.header('x-ratelimit-remaining', String(local));
      return;
    }
    // A limited address may still use keys it has used before or this process has verified;
    // anything else waits, without a database look-up.
    if (wait > 0 && !known && !failures.familiar(address, key)) throw blocked(wait);
    const generation = fast.keys.generation();
    const result = await authenticateAndCharge(
      database.db,
      key,
      bucket,
      limit,
      config.rateLimits.windowSeconds,
      config.rateLimits.batchMax,
    );
    if (!result.ok) {
      failures.fail(address);
      throw unauthorized(AUTH_MESSAGES[result.reason]);
    }
    failures.succeed(address, key);
    request.accountId = result.accountId;
    fast.keys.set(key, { accountId: result.accountId, keyId: result.keyId }, generation);
    fast.limiter.addGrant(result.accountId, bucket, result.granted, result.left);
    const taken = result.granted > 0 ? result.left + result.granted - 1 : result.left;
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
