import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Asset, asset, loadAssets, loadIndex } from './assets.ts';

function csp(importMapHash: string): string {
  // Everything comes from this origin: no CDN, fonts or tiles. The one inline script is the
  // import map, allowed by its hash.
  return [
    "default-src 'self'",
    `script-src 'self' 'sha256-${importMapHash}'`,
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function send(request: FastifyRequest, reply: FastifyReply, a: Asset) {
  reply
    .header('etag', a.etag)
    .header('cache-control', 'no-cache')
    .header('x-content-type-options', 'nosniff');
  if (request.headers['if-none-match'] === a.etag) return reply.code(304).send();
  return reply.type(a.type).send(a.body);
}

/**
 * The web console: one HTML page at `/` and its modules under `/console/`. It has no server-side
 * logic of its own: the page calls the public API (/v2) with the key the user typed, so it sees
 * exactly what that key's account sees, under the same rate limits.
 */
export function consoleRoutes() {
  return async (app: FastifyInstance) => {
    const assets = loadAssets();
    const index = loadIndex();
    const page = asset(Buffer.from(index.html), 'index.html');
    const policy = csp(index.importMapHash);

    const opts = { config: { auth: false }, schema: { hide: true } } as const;
    app.get('/', opts, async (request, reply) => {
      reply
        .header('content-security-policy', policy)
        .header('referrer-policy', 'no-referrer')
        .header('x-frame-options', 'DENY');
      return send(request, reply, page);
    });
    app.get('/console/*', opts, async (request, reply) => {
      const path = request.url.split('?')[0] ?? '';
      const a = assets.get(path);
      if (!a) {
        return reply
          .code(404)
          .type('application/json; charset=utf-8')
          .send({
            errors: [{ status: '404', title: 'Not Found', detail: `No file ${path}.`, code: 'not_found' }],
          });
      }
      return send(request, reply, a);
    });
  };
}
