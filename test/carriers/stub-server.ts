// A real HTTP server on 127.0.0.1 (port 0) whose behaviour each test scripts. Records requests.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export type StubHandler = (req: StubRequest, res: ServerResponse, index: number) => void | Promise<void>;

export interface Stub {
  /** Origin, e.g. http://127.0.0.1:54321 */
  url: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export async function startStub(handler: StubHandler): Promise<Stub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: StubRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', 'http://stub'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(r);
      Promise.resolve(handler(r, res, requests.length - 1)).catch((err) => {
        res.statusCode = 599;
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
