import type { FastifyInstance } from 'fastify';
import { authenticate } from '../accounts/service.ts';
import type { AppContext } from '../app-context.ts';
import { ApiError, unauthorized } from '../errors.ts';
import { AUTH_MESSAGES, keyFromHeader } from '../http/auth-header.ts';
import { injectCaller } from './api.ts';

// The SDK is loaded on the first MCP request, not at start: most processes never serve one.
let sdk: Promise<
  [typeof import('./server.ts'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]
>;
const loadSdk = () =>
  (sdk ??= Promise.all([
    import('./server.ts'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]));

/**
 * MCP over Streamable HTTP at POST /mcp, stateless: every request gets a fresh server bound to the
 * caller's key, so nothing is kept between requests and any API process can answer any request.
 * GET (a server-initiated stream) and DELETE (ending a session) have nothing to do without
 * sessions: 405, as the transport specification allows.
 */
export function mcpRoutes(ctx: AppContext) {
  return async (app: FastifyInstance) => {
    const opts = { config: { auth: false }, schema: { hide: true } } as const;

    app.post('/mcp', opts, async (request, reply) => {
      const key = keyFromHeader(request.headers.authorization);
      if (!key) throw unauthorized(AUTH_MESSAGES.missing);
      // The key is checked here so a bad one is an HTTP 401; each tool's API call checks it again
      // (from the key cache) and counts against the account's rate limit.
      const auth = await authenticate(ctx.database.db, key);
      if (!auth.ok) throw unauthorized(AUTH_MESSAGES[auth.reason]);

      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
      const server = createMcpServer(injectCaller(app, key), request.log);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      reply.hijack();
      try {
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        // The response is ours now (hijacked): answer a JSON-RPC error unless one was sent.
        request.log.error({ err }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
          );
        }
      }
    });

    const notAllowed = async () => {
      throw new ApiError(
        405,
        [
          {
            detail: 'This MCP endpoint is stateless: send JSON-RPC messages with POST.',
            code: 'method_not_allowed',
          },
        ],
        { allow: 'POST' },
      );
    };
    app.get('/mcp', opts, notAllowed);
    app.delete('/mcp', opts, notAllowed);
  };
}
