import type { FastifyInstance } from 'fastify';
import { AUTH_SCHEMES } from './auth-header.ts';

// GET /v2: the address the first start prints. It answers without a key with where to go next:
// the OpenAPI document, the interactive reference, the console and the main collections.

/** The collections a new user starts from; every one answers GET with a key. */
const COLLECTIONS = [
  'tracking_requests',
  'shipments',
  'containers',
  'webhooks',
  'webhook_notifications',
  'shipping_lines',
  'documents',
  'alert_rules',
] as const;

export function apiIndexRoute(baseUrl: string) {
  const body = {
    links: {
      self: `${baseUrl}/v2`,
      openapi: `${baseUrl}/v2/openapi.json`,
      docs: `${baseUrl}/docs`,
      console: `${baseUrl}/`,
      ...Object.fromEntries(COLLECTIONS.map((c) => [c, `${baseUrl}/v2/${c}`])),
    },
    meta: { authentication: `Authorization: ${AUTH_SCHEMES}` },
  };
  return async (v2: FastifyInstance) => {
    v2.get('/', { config: { auth: false }, schema: { hide: true } }, async () => body);
  };
}
