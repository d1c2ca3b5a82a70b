import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { errors } from 'undici';
import { BlockedAddressError, createAddressPolicy } from '../../src/webhooks/delivery/address-guard.ts';
import {
  type AttemptOutcome,
  attemptDelivery,
  classifyError,
  createDispatcher,
} from '../../src/webhooks/delivery/http-attempt.ts';
import { signatureHeaders, verifyLegacy, verifyStandard } from '../../src/webhooks/delivery/sign.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

// A local receiver whose behaviour each test sets; it records what it was sent.
async function receiver(handle: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handle(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const policy = createAddressPolicy({ allowHttp: true, allowlist: ['127.0.0.0/8'], connectTimeoutMs: 1000 });
after(() => policy.dispatcher.close());

const attempt = (
  url: string,
  extra: Partial<Parameters<typeof attemptDelivery>[0]> = {},
): Promise<AttemptOutcome> =>
  attemptDelivery({
    url,
    body: '{"data":{"id":"n1"}}',
    headers: {},
    dispatcher: policy.dispatcher,
    totalTimeoutMs: 2000,
    ...extra,
  });

describe('attemptDelivery: request shape and signatures', () => {
  test('POSTs JSON with the signature headers, user agent, and rotation headers', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('thanks'));
    try {
      const body = '{"data":{"id":"n1","type":"webhook_notification"}}';
      const secrets = ['whsec_dGVzdC1zZWNyZXQtZm9yLWRvY3MtMDEyMzQ1Njc4OWFi', 'old plain secret'];
      const ts = Math.floor(Date.now() / 1000);
      const headers = signatureHeaders({
        secrets,
        legacyHeaderName: 'X-SERVICE-Webhook-Signature',
        msgId: 'n1',
        timestamp: ts,
        body,
      });
      const out = await attempt(`${r.url}/hook?x=1`, {
        body,
        headers: { ...headers, 'X-Custom': 'yes', 'Content-Length': '1', Host: 'evil' },
      });
      assert.deepEqual(
        { ...out, durationMs: 0 },
        {
          ok: true,
          statusCode: 200,
          error: null,
          durationMs: 0,
          retryAfterMs: null,
          responseExcerpt: 'thanks',
          gone: false,
        },
      );
      const [s] = r.seen;
      assert.ok(s);
      assert.equal(s.method, 'POST');
      assert.equal(s.url, '/hook?x=1');
      assert.equal(s.body, body);
      assert.equal(s.headers['content-type'], 'application/json');
      assert.equal(s.headers['user-agent'], 'tracker-webhooks/0.1');
      assert.equal(s.headers['x-custom'], 'yes');
      assert.equal(s.headers.host, `127.0.0.1:${r.port}`);
      // What arrived verifies with both schemes, for the current and the previous secret.
      const h = s.headers as Record<string, string>;
      for (const secret of secrets) {
        assert.deepEqual(verifyStandard({ secret, headers: h, body: s.body }), { ok: true });
      }
      assert.equal(verifyLegacy(secrets[0]!, s.body, h['x-service-webhook-signature']), true);
      assert.equal(verifyLegacy(secrets[1]!, s.body, h['x-service-webhook-signature-previous']), true);
      assert.equal(verifyLegacy(secrets[1]!, s.body, h['x-service-webhook-signature']), false);
    } finally {
      await r.close();
    }
  });
});

describe('attemptDelivery: acknowledgement', () => {
  for (const code of [200, 201, 202, 204]) {
    test(`${code} acknowledges`, async () => {
      const r = await receiver((_req, res) => res.writeHead(code).end());
      try {
        const out = await attempt(r.url);
        assert.equal(out.ok, true);
        assert.equal(out.statusCode, code);
        assert.equal(out.error, null);
      } finally {
        await r.close();
      }
    });
  }
  for (const [code, error] of [
    [500, 'http_500'],
    [404, 'http_404'],
    [203, 'http_203'],
    [400, 'http_400'],
  ] as const) {
    test(`${code} fails`, async () => {
      const r = await receiver((_req, res) => res.writeHead(code).end('nope'));
      try {
        const out = await attempt(r.url);
        assert.equal(out.ok, false);
        assert.equal(out.statusCode, code);
        assert.equal(out.error, error);
        assert.equal(out.responseExcerpt, 'nope');
        assert.equal(out.gone, false);
      } finally {
        await r.close();
      }
    });
  }
  test('410 fails and reports gone', async () => {
    const r = await receiver((_req, res) => res.writeHead(410).end());
    try {
      const out = await attempt(r.url);
      assert.equal(out.ok, false);
      assert.equal(out.gone, true);
    } finally {
      await r.close();
    }
  });

  for (const code of [301, 302, 307, 308]) {
    test(`${code} redirect is not followed`, async () => {
      const target = await receiver((_req, res) => res.writeHead(200).end());
      const r = await receiver((_req, res) =>
        res.writeHead(code, { location: `${target.url}/elsewhere` }).end(),
      );
      try {
        const out = await attempt(r.url);
        assert.equal(out.ok, false);
        assert.equal(out.statusCode, code);
        assert.equal(out.error, 'redirect_not_followed');
        assert.equal(r.seen.length, 1);
        assert.equal(target.seen.length, 0);
      } finally {
        await r.close();
        await target.close();
      }
    });
  }
});

describe('attemptDelivery: time limits and limits on what is read', () => {
  test('a receiver that never answers times out within the total limit', async () => {
    const r = await receiver(() => {}); // reads the request, never responds
    try {
      const out = await attempt(r.url, { totalTimeoutMs: 200 });
      assert.equal(out.ok, false);
      assert.equal(out.error, 'timeout');
      assert.equal(out.statusCode, null);
      assert.ok(out.durationMs >= 190 && out.durationMs < 1000, `took ${out.durationMs} ms`);
      assert.equal(r.seen.length, 1);
    } finally {
      await r.close();
    }
  });

  test('a receiver that sends headers then stalls the body: status counts, excerpt is what arrived', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      res.write('partial');
    });
    try {
      const out = await attempt(r.url, { totalTimeoutMs: 200 });
      assert.equal(out.ok, true);
      assert.equal(out.responseExcerpt, 'partial');
      assert.ok(out.durationMs < 1000);
    } finally {
      await r.close();
    }
  });

  test('the response excerpt is capped and the rest of an endless body is never read', async () => {
    let written = 0;
    let closed = false;
    const r = await receiver((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024, 'x');
      const pump = () => {
        if (closed) return;
        written += chunk.length;
        res.write(chunk);
        setTimeout(pump, 2);
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    try {
      const out = await attempt(r.url, { maxExcerptBytes: 100, totalTimeoutMs: 5000 });
      assert.equal(out.error, 'http_500');
      assert.equal(out.responseExcerpt, 'x'.repeat(100));
      assert.ok(out.durationMs < 1000, `took ${out.durationMs} ms: the body was read to the end`);
      for (let i = 0; i < 50 && !closed; i++) await new Promise((res) => setTimeout(res, 10));
      assert.equal(closed, true, 'the connection was aborted after the excerpt');
      assert.ok(written < 1024 * 1024, `receiver wrote ${written} bytes`);
    } finally {
      await r.close();
    }
  });

  test('the excerpt never splits a multi-byte character', async () => {
    const r = await receiver((_req, res) => res.writeHead(400).end('ab€€€'));
    try {
      const out = await attempt(r.url, { maxExcerptBytes: 4 }); // 'ab' + 2 of the 3 bytes of '€'
      assert.equal(out.responseExcerpt, 'ab');
      const full = await attempt(r.url, { maxExcerptBytes: 1024 });
      assert.equal(full.responseExcerpt, 'ab€€€');
    } finally {
      await r.close();
    }
  });

  test('connection refused', async () => {
    const r = await receiver(() => {});
    const url = r.url;
    await r.close();
    const out = await attempt(url);
    assert.equal(out.ok, false);
    assert.equal(out.error, 'connection_refused');
  });

  test('connect timeout (slow name resolution counts against it)', async () => {
    const slow = createAddressPolicy({
      allowHttp: true,
      allowlist: ['127.0.0.0/8'],
      connectTimeoutMs: 100,
      resolve: () => new Promise(() => {}), // a resolver that never answers
    });
    const r = await receiver((_req, res) => res.writeHead(200).end());
    try {
      const out = await attempt(`http://slow.test:${r.port}/`, {
        dispatcher: slow.dispatcher,
        totalTimeoutMs: 5000,
      });
      assert.equal(out.error, 'connect_timeout');
      // undici's connect timer ticks every ~500 ms, so 100 ms fires within about a second.
      assert.ok(out.durationMs >= 100 && out.durationMs < 2000, `took ${out.durationMs} ms`);
      assert.equal(r.seen.length, 0);
    } finally {
      await slow.dispatcher.close();
      await r.close();
    }
  });

  test('TLS failure (https to a plain-HTTP receiver)', async () => {
    const tls = createAddressPolicy({ allowHttp: false, allowlist: ['127.0.0.0/8'] });
    const r = await receiver((_req, res) => res.writeHead(200).end());
    try {
      const out = await attempt(`https://127.0.0.1:${r.port}/`, { dispatcher: tls.dispatcher });
      assert.equal(out.ok, false);
      assert.equal(out.error, 'tls_error');
      assert.equal(r.seen.length, 0);
    } finally {
      await tls.dispatcher.close();
      await r.close();
    }
  });

  test('a connection dropped before the answer', async () => {
    const r = await receiver((req) => req.socket.destroy());
    try {
      const out = await attempt(r.url);
      assert.equal(out.ok, false);
      assert.equal(out.error, 'connection_reset');
    } finally {
      await r.close();
    }
  });
});

describe('attemptDelivery: Retry-After', () => {
  test('read on 429 (seconds) and 503 (HTTP-date)', async () => {
    const r = await receiver((req, res) => {
      if (req.url === '/429') res.writeHead(429, { 'retry-after': '120' }).end();
      else res.writeHead(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end();
    });
    try {
      const a = await attempt(`${r.url}/429`);
      assert.equal(a.error, 'http_429');
      assert.equal(a.retryAfterMs, 120_000);
      const b = await attempt(`${r.url}/503`);
      assert.equal(b.error, 'http_503');
      assert.ok(b.retryAfterMs! > 55_000 && b.retryAfterMs! <= 60_000, String(b.retryAfterMs));
    } finally {
      await r.close();
    }
  });

  test('ignored on other statuses', async () => {
    const r = await receiver((_req, res) => res.writeHead(500, { 'retry-after': '120' }).end());
    try {
      assert.equal((await attempt(r.url)).retryAfterMs, null);
    } finally {
      await r.close();
    }
  });
});

describe('createDispatcher', () => {
  test('bounds connections per origin and reuses them (keep-alive)', async () => {
    const sockets = new Set<unknown>();
    let inFlight = 0;
    let maxInFlight = 0;
    const r = await receiver((req, res) => {
      sockets.add(req.socket);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(204).end();
      }, 20);
    });
    const d = createDispatcher(policy, { connectTimeoutMs: 1000, maxConnectionsPerOrigin: 2 });
    try {
      const outs = await Promise.all(Array.from({ length: 6 }, () => attempt(r.url, { dispatcher: d })));
      assert.ok(outs.every((o) => o.ok));
      assert.equal(maxInFlight, 2);
      assert.equal(sockets.size, 2);
    } finally {
      await d.close();
      await r.close();
    }
  });
});

describe('classifyError', () => {
  test('maps transport errors to stable codes', () => {
    assert.equal(classifyError(new errors.ConnectTimeoutError()), 'connect_timeout');
    assert.equal(classifyError(new errors.HeadersTimeoutError()), 'timeout');
    assert.equal(classifyError(new errors.BodyTimeoutError()), 'timeout');
    assert.equal(classifyError(new errors.SocketError('x')), 'connection_reset');
    assert.equal(
      classifyError(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })),
      'connection_refused',
    );
    assert.equal(classifyError(Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' })), 'tls_error');
    assert.equal(
      classifyError(Object.assign(new Error('x'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })),
      'tls_error',
    );
    assert.equal(
      classifyError(Object.assign(new Error('x'), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' })),
      'tls_error',
    );
    // A name that does not resolve and one that resolves to a refused address: one answer.
    assert.equal(classifyError(Object.assign(new Error('x'), { code: 'ENOTFOUND' })), 'blocked_address');
    assert.equal(classifyError(new BlockedAddressError('private', '10.0.0.1', 'x.test')), 'blocked_address');
    // An address written in the URL may be named.
    assert.equal(
      classifyError(new BlockedAddressError('private', '10.0.0.1', '10.0.0.1')),
      'blocked_address: private',
    );
    const refused = Object.assign(new Error('x'), { code: 'ECONNREFUSED' });
    assert.equal(classifyError(new AggregateError([refused])), 'connection_refused');
    assert.equal(classifyError(new Error('odd')), 'network_error: Error');
    assert.equal(classifyError(null), 'network_error');
  });
});
