import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
  at: number;
}

export type Responder = (
  req: Received,
  count: number,
) => { status: number; headers?: Record<string, string>; delayMs?: number; hang?: boolean } | undefined;

/** A real webhook receiver on 127.0.0.1; each path answers with its own responder (default 200). */
export async function startReceiver() {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const counts = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const path = req.url ?? '/';
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: Received = { path, headers: req.headers, body, json, at: Date.now() };
      received.push(r);
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      const answer = responders.get(path)?.(r, n) ?? { status: 200 };
      if (answer.hang) {
        hanging.add(res);
        return;
      }
      const send = () => {
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
        res.end('{"ok":true}');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    on(path: string, responder: Responder) {
      responders.set(path, responder);
    },
    at(path: string) {
      return received.filter((r) => r.path === path);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
