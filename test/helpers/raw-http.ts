import assert from 'node:assert/strict';
import net from 'node:net';

// Raw HTTP/1.1 over a socket: for requests fetch would refuse or rewrite (malformed
// percent-encoding, invalid UTF-8 bytes, oversized request lines, bodies that trickle in).

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  body: any;
  /** Milliseconds from connect to the socket closing. */
  elapsedMs: number;
}

export interface RawRequest {
  method?: string;
  target: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body in pieces of this many bytes, one piece every `everyMs`. */
  trickle?: { bytes: number; everyMs: number };
  /** Written instead of the request line and headers (e.g. an unfinished head). */
  head?: string;
  timeoutMs?: number;
}

export function parseRawResponse(raw: Buffer, elapsedMs: number): RawResponse {
  const text = raw.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  const head = split >= 0 ? text.slice(0, split) : text;
  const payload = split >= 0 ? text.slice(split + 4) : '';
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  let body: unknown;
  try {
    body = payload ? JSON.parse(payload) : undefined;
  } catch {
    body = undefined;
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, text: payload, body, elapsedMs };
}

/** Sends one request with `Connection: close` and reads until the server closes. */
export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body = req.body === undefined ? undefined : Buffer.from(req.body);
  const headers: Record<string, string> = {
    host: `${hostname}:${port}`,
    connection: 'close',
    ...req.headers,
  };
  if (body && headers['content-length'] === undefined) headers['content-length'] = String(body.length);
  const head =
    req.head ??
    `${req.method ?? 'GET'} ${req.target} HTTP/1.1\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      if (!body) return;
      if (!req.trickle) {
        socket.write(body);
        return;
      }
      const { bytes, everyMs } = req.trickle;
      let at = 0;
      timer = setInterval(() => {
        if (at >= body.length || socket.destroyed) return clearInterval(timer);
        socket.write(body.subarray(at, at + bytes));
        at += bytes;
      }, everyMs);
    });
    const limit = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${req.timeoutMs ?? 10_000} ms`));
    }, req.timeoutMs ?? 10_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(limit);
      clearInterval(timer);
      resolve(parseRawResponse(Buffer.concat(chunks), Date.now() - started));
    });
  });
}

/** Asserts a JSON:API error document whose every error's status is the HTTP status. */
export function assertJsonApiError(res: { status: number; body: any; text?: string }, status?: number): void {
  const what = `${res.status} ${res.text ?? JSON.stringify(res.body)}`.slice(0, 500);
  if (status !== undefined) assert.equal(res.status, status, what);
  assert.ok(res.status >= 400 && res.status < 600, what);
  assert.ok(Array.isArray(res.body?.errors) && res.body.errors.length > 0, what);
  for (const e of res.body.errors) {
    assert.equal(e.status, String(res.status), what);
    assert.equal(typeof e.title, 'string', what);
    assert.equal(typeof e.detail, 'string', what);
    assert.equal(typeof e.code, 'string', what);
  }
}
