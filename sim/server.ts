import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerAis } from './ais.ts';
import { createSimClock, type SimClock } from './clock.ts';
import { answerControl, type SimulatorStats } from './control.ts';
import { dcsaError, json, type Reply } from './dcsa-http.ts';
import { answerEvents } from './events-endpoint.ts';
import { type OAuthOptions, TokenIssuer } from './oauth.ts';
import { type CarrierQuirks, createQuirks } from './quirks.ts';
import { resolveReference, servedShipments } from './scenarios.ts';
import { answerTerminal } from './terminal-endpoint.ts';
import { feedbackError, v2Params } from './v3.ts';

// The standalone carrier simulator: DCSA Track & Trace 2.2 `GET /v2/events` (and the same journeys
// as 3.0.0 at `GET /v3/events`, sim/v3.ts) over plain node:http,
// plus an OAuth2 token endpoint and control endpoints for the simulated clock. Per-request work
// is a cache lookup, a filter and a JSON.stringify, so it keeps up with benchmark load.

export interface SimulatorOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Simulated seconds per real second (default 1; 0 freezes the clock). */
  speed?: number;
  /** Journeys are anchored on this instant (default: now, to the minute). */
  epoch?: Date | number | string;
  /** Headers every /v2 request must carry with these exact values, e.g. {'x-api-key': 'secret'}. */
  requireHeaders?: Record<string, string>;
  /** Enables POST /oauth/token; /v2 then requires a bearer token from it. */
  oauth?: OAuthOptions;
  /** Status for references the carrier does not know: 200 with [] (default) or 404 with a DCSA error. */
  notFoundStatus?: 200 | 404;
  /** When set, unknown references get a 400 with this error message (a carrier's own "not found"). */
  notFoundReason?: string;
  /** Behave like a carrier that differs from the standard (sim/quirks.ts). */
  quirks?: CarrierQuirks;
  /** Next-Page as an opaque cursor (default) or as a full URL. */
  pageLinks?: 'cursor' | 'url';
  /** How long a SIMFLAKY "hang" holds the request before a 504 (default 30 s). */
  flakyHangMs?: number;
  /** Mount point of the DCSA API, as carriers use their own (e.g. "/hlag/external"). Default "". */
  basePath?: string;
}

export interface RunningSimulator {
  /** Base URL of the DCSA API: origin plus basePath, e.g. http://127.0.0.1:4000 (append /v2/events). */
  url: string;
  /** Scheme, host and port only. */
  origin: string;
  /** Full URL of GET /v2/events. */
  eventsUrl: string;
  clock: SimClock;
  stats(): SimulatorStats;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const clock = createSimClock({
    ...(options.epoch !== undefined ? { epoch: options.epoch } : {}),
    speed: options.speed ?? 1,
  });
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const issuer = options.oauth ? new TokenIssuer(options.oauth) : undefined;
  const required = Object.entries(options.requireHeaders ?? {}).map(
    ([k, v]) => [k.toLowerCase(), v] as const,
  );
  const quirks = createQuirks(options.quirks);
  let stats = emptyStats();
  const hanging = new Set<NodeJS.Timeout>();
  // Load the reference data now rather than in the first request.
  resolveReference('TRD', 'TEST-TR-SUCCEEDED', clock.epoch.getTime());

  const statsApi = {
    read: (): SimulatorStats => ({ ...stats, tokensIssued: issuer?.issued ?? 0 }),
    reset: () => {
      stats = emptyStats();
    },
  };

  async function route(req: IncomingMessage): Promise<Reply> {
    const method = req.method ?? 'GET';
    const uri = req.url ?? '/';
    const url = new URL(uri, 'http://simulator');
    const full = url.pathname.replace(/\/+$/, '') || '/';
    // Everything is reachable under the base path; control and token endpoints at the root too.
    const inBase = basePath !== '' && full.startsWith(`${basePath}/`);
    const path = inBase ? full.slice(basePath.length) : full;
    const request = { method, uri };
    if (path.startsWith('/control/')) {
      const body = method === 'POST' ? await readJson(req) : undefined;
      if (body === INVALID) return json(400, { error: 'body must be JSON' });
      return (
        answerControl(method, path, body, clock, statsApi) ?? json(404, { error: 'no such control endpoint' })
      );
    }
    if (path.startsWith('/ais/')) {
      if (method !== 'GET') return json(405, { error: 'only GET' }, { allow: 'GET' });
      const reply = answerAis(path, url.searchParams, clock.nowMs(), () =>
        servedShipments(clock.epoch.getTime()),
      );
      if (reply) return reply;
    }
    if (path === '/oauth/token' && issuer) {
      if (method !== 'POST') return json(405, { error: 'invalid_request' }, { allow: 'POST' });
      const raw = await readBody(req);
      const type = req.headers['content-type'] ?? '';
      const fields = type.includes('json') ? jsonFields(raw) : new URLSearchParams(raw);
      const answer = issuer.token(fields, req.headers.authorization);
      return json(answer.status, answer.body, { 'cache-control': 'no-store' });
    }
    const terminalFeed = path.startsWith('/terminal/');
    const v3 = path === '/v3/events';
    if (terminalFeed || ((path === '/v2/events' || v3) && (basePath === '' || inBase))) {
      for (const [name, value] of required) {
        if (req.headers[name] !== value)
          return dcsaError(request, 401, 'unauthorized', `Missing or wrong ${name} header`);
      }
      if (issuer && !issuer.accepts(req.headers.authorization)) {
        return dcsaError(request, 401, 'unauthorized', 'A valid bearer token is required', {
          'www-authenticate': 'Bearer error="invalid_token"',
        });
      }
      if (terminalFeed)
        return answerTerminal(method, path, clock) ?? json(404, { error: 'no such terminal endpoint' });
      if (method !== 'GET')
        return dcsaError(request, 405, 'methodNotAllowed', 'Only GET is supported', { allow: 'GET' });
      const refusal = quirks.refuse(url.searchParams, req.headers, (status, reason, message, headers) =>
        v3 ? feedbackError(status, message, headers) : dcsaError(request, status, reason, message, headers),
      );
      if (refusal) return refusal;
      const answer = answerEvents(
        {
          method,
          uri,
          // 3.0.0 asks the same question in other words (sim/v3.ts).
          params: v3 ? v2Params(url.searchParams) : url.searchParams,
          endpointUrl: `http://${req.headers.host}${basePath}${v3 ? '/v3' : '/v2'}/events`,
        },
        {
          epochMs: clock.epoch.getTime(),
          nowMs: clock.nowMs(),
          notFoundStatus: options.notFoundStatus ?? 200,
          ...(options.notFoundReason !== undefined ? { notFoundReason: options.notFoundReason } : {}),
          pageLinks: options.pageLinks ?? 'cursor',
          hangMs: options.flakyHangMs ?? 30_000,
          v3,
          count: (value) => {
            const key = value.toUpperCase();
            stats.byNumber[key] = (stats.byNumber[key] ?? 0) + 1;
            return stats.byNumber[key];
          },
        },
      );
      return quirks.rename(answer);
    }
    return dcsaError(request, 404, 'notFound', `No endpoint ${method} ${url.pathname}`);
  }

  function send(res: ServerResponse, path: string, reply: Reply): void {
    stats.total++;
    stats.byPath[path] = (stats.byPath[path] ?? 0) + 1;
    stats.byStatus[reply.status] = (stats.byStatus[reply.status] ?? 0) + 1;
    const write = () => {
      if (res.destroyed) return;
      res.writeHead(reply.status, reply.headers);
      res.end(reply.body);
    };
    if (!reply.delayMs) {
      write();
      return;
    }
    const timer = setTimeout(() => {
      hanging.delete(timer);
      write();
    }, reply.delayMs);
    hanging.add(timer);
    res.on('close', () => {
      clearTimeout(timer);
      hanging.delete(timer);
    });
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://simulator').pathname;
    route(req).then(
      (reply) => send(res, path, reply),
      () => send(res, path, json(500, { error: 'internal simulator error' })),
    );
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address, family } = server.address() as AddressInfo;
  const origin = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  return {
    url: `${origin}${basePath}`,
    origin,
    eventsUrl: `${origin}${basePath}/v2/events`,
    clock,
    stats: statsApi.read,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of hanging) clearTimeout(t);
        hanging.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function emptyStats(): SimulatorStats {
  return { total: 0, byPath: {}, byNumber: {}, byStatus: {}, tokensIssued: 0 };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const INVALID = Symbol('invalid');

async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req);
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return INVALID;
  }
}

function jsonFields(raw: string): URLSearchParams {
  try {
    const value = JSON.parse(raw) as Record<string, unknown>;
    return new URLSearchParams(Object.entries(value).map(([k, v]) => [k, String(v)]));
  } catch {
    return new URLSearchParams();
  }
}
