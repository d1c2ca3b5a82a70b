import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createKeyCache } from './accounts/key-cache.ts';
import { alertRoutes } from './alerts/routes.ts';
import type { AppContext } from './app-context.ts';
import { changeRoutes } from './changes/routes.ts';
import { consoleRoutes } from './console/routes.ts';
import { customFieldRoutes } from './custom-fields/routes.ts';
import { startChangeFeed } from './db/change-feed.ts';
import { documentActionRoutes } from './documents/routes/actions.ts';
import { documentRoutes } from './documents/routes/documents.ts';
import { emailSubmissionRoutes } from './documents/routes/email-submissions.ts';
import { documentSchemaRoutes } from './documents/routes/schemas.ts';
import { uploadRoutes } from './documents/routes/uploads.ts';
import { apiIndexRoute } from './http/api-index.ts';
import { registerAuth } from './http/auth.ts';
import { createAuthFailureLimiter } from './http/auth-failures.ts';
import { registerCacheMetrics, registerResponseCache } from './http/cache-hooks.ts';
import { cacheSubscriber } from './http/cache-subscriber.ts';
import { dateTimeFormat } from './http/date-time.ts';
import { clientErrorHandler, frameworkErrors, registerClosing } from './http/edge-errors.ts';
import { registerErrorHandling, registerNotFound } from './http/error-handler.ts';
import { healthRoutes } from './http/health.ts';
import { registerInputGuard } from './http/input-guard.ts';
import { registerJsonBodyParser } from './http/json-body.ts';
import { lazyCompilersFactory } from './http/lazy-compilers.ts';
import { LIMITS } from './http/limits.ts';
import { metricsRoute } from './http/metrics-route.ts';
import { createRateLimiter } from './http/rate-limiter.ts';
import { createResponseCache } from './http/response-cache.ts';
import { mapRoutes } from './maps/routes.ts';
import { mcpRoutes } from './mcp/http.ts';
import type { Metrics } from './metrics.ts';
import { partyRoutes } from './parties/routes.ts';
import { referenceRoutes } from './reference/routes.ts';
import { setTerminalCoverage } from './reference/terminal-coverage.ts';
import { searchRoutes } from './search/routes.ts';
import { containerEditRoutes } from './shipments/containers/edit-routes.ts';
import { containerRoutes } from './shipments/containers/routes.ts';
import { shipmentRoutes } from './shipments/routes.ts';
import { shippingLineRoutes } from './shipping-lines/routes.ts';
import { trackingRequestImportRoutes } from './tracking-requests/import-routes.ts';
import { inferRoutes, trackingRequestRoutes } from './tracking-requests/routes.ts';
import { webhookNotificationRoutes } from './webhooks/notifications/routes.ts';
import { webhookRoutes } from './webhooks/subscriptions/routes.ts';

export interface BuildOptions {
  logger?: Logger | false;
}

/** Builds the HTTP app. Every route module is listed here, in order; nothing is discovered. */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const requestTimeout = ctx.config.requestTimeoutMs;
  // Terminals say which facts a configured connection gets there (their provided_data).
  setTerminalCoverage(ctx.config.terminals);
  const app = Fastify({
    loggerInstance: options.logger ? (options.logger as unknown as FastifyBaseLogger) : undefined,
    bodyLimit: ctx.config.bodyLimitBytes,
    // Headers and body must arrive within REQUEST_TIMEOUT_MS. Node checks that only every
    // connectionsCheckingInterval (30 s by default), so the check runs four times per time-out.
    requestTimeout,
    http: {
      requestTimeout,
      headersTimeout: requestTimeout,
      connectionsCheckingInterval: Math.max(25, Math.min(30_000, Math.floor(requestTimeout / 4))),
    },
    // Long path parameters reach the input guard, which names the parameter (LIMITS.pathParamLength).
    routerOptions: { maxParamLength: LIMITS.urlLength },
    frameworkErrors,
    clientErrorHandler,
    trustProxy: trustProxyOption(ctx.config.trustProxy),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    ajv: {
      // Strict input: no type coercion, no silent stripping of unknown members.
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: true, useDefaults: true },
      // Real calendar dates with years 0001-9999 only (ajv-formats accepts year 0000).
      onCreate: (ajv: { addFormat(name: string, format: typeof dateTimeFormat): unknown }) =>
        ajv.addFormat('date-time', dateTimeFormat),
    },
    // registerClosing answers requests that arrive while closing, as JSON:API.
    return503OnClosing: false,
    // Validators and serializers compile on a route's first request, not all at start (lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilersFactory() as never },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as FastifyInstance;

  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  const metrics = ctx.metrics;
  if (metrics) {
    app.addHook('onResponse', async (request, reply) => {
      metrics.httpDuration.observe(
        {
          route: request.routeOptions.url ?? 'unmatched',
          method: request.method,
          status: String(reply.statusCode),
        },
        reply.elapsedTime / 1000,
      );
    });
  }
  registerJsonBodyParser(app);
  registerErrorHandling(app);
  registerNotFound(app);
  registerClosing(app);
  registerInputGuard(app);
  const { config, database } = ctx;
  const keys = createKeyCache();
  const responses =
    config.cache.responseMaxBytes > 0
      ? createResponseCache({ maxBytes: config.cache.responseMaxBytes, ttlMs: config.cache.ttlMs })
      : null;
  const limiter = createRateLimiter({ windowSeconds: config.rateLimits.windowSeconds });
  const failures = createAuthFailureLimiter({
    limit: config.rateLimits.authFailures,
    windowMs: config.rateLimits.windowSeconds * 1000,
  });
  // The change feed publishes; the caches subscribe here, where the app is wired.
  const stopFeed = await startChangeFeed(database, [cacheSubscriber({ responses, keys }, app.log)]);
  app.addHook('onClose', async () => {
    await stopFeed().catch(() => {});
  });
  registerAuth(app, database, config, { keys, limiter, failures });
  if (responses) {
    registerResponseCache(app, responses);
    if (ctx.metrics) registerCacheMetrics(ctx.metrics.registry, responses);
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Container tracking API',
        version: '2.0.0',
        description:
          'Self-hosted ocean shipment and container tracking. JSON:API under /v2. Authenticate with `Authorization: Token <key>` (or `Bearer <key>`).',
      },
      servers: [{ url: ctx.baseUrl || '/' }],
      components: {
        securitySchemes: {
          token: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'Token <key> or Bearer <key>',
          },
        },
      },
      security: [{ token: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { url: '/v2/openapi.json' } });

  await app.register(healthRoutes(ctx.database));
  await app.register(consoleRoutes());
  await app.register(mcpRoutes(ctx));
  if (metrics) await app.register(metricsRoute(ctx.config, metrics));
  await app.register(
    async (v2) => {
      await v2.register(apiIndexRoute(ctx.baseUrl));
      v2.get('/openapi.json', { config: { auth: false }, schema: { hide: true } }, async () => app.swagger());
      await v2.register(trackingRequestRoutes(ctx));
      await v2.register(trackingRequestImportRoutes(ctx));
      await v2.register(shippingLineRoutes);
      await v2.register(webhookRoutes(ctx));
      await v2.register(webhookNotificationRoutes(ctx));
      await v2.register(alertRoutes(ctx));
      await v2.register(inferRoutes);
      await v2.register(shipmentRoutes(ctx));
      await v2.register(containerRoutes(ctx));
      await v2.register(containerEditRoutes(ctx));
      await v2.register(changeRoutes(ctx));
      await v2.register(partyRoutes(ctx));
      await v2.register(customFieldRoutes(ctx));
      await v2.register(searchRoutes(ctx));
      await v2.register(referenceRoutes(ctx));
      await v2.register(mapRoutes(ctx));
      await v2.register(documentRoutes(ctx));
      await v2.register(documentActionRoutes(ctx));
      await v2.register(uploadRoutes(ctx));
      await v2.register(documentSchemaRoutes(ctx));
      await v2.register(emailSubmissionRoutes(ctx));
    },
    { prefix: '/v2' },
  );
  return app;
}

/** A hop count trusts that many proxies in front of us (proxy-addr's hop semantics). */
function trustProxyOption(t: AppContext['config']['trustProxy']) {
  return typeof t === 'number' ? (_address: string, hop: number) => hop < t : t;
}

/** Health and metrics only: what a worker-only process serves. */
export async function buildOpsServer(
  config: AppContext['config'],
  database: AppContext['database'],
  metrics: Metrics,
) {
  const app = Fastify();
  await app.register(healthRoutes(database));
  await app.register(metricsRoute(config, metrics));
  return app;
}
