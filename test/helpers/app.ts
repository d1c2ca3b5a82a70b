import type { FastifyInstance } from 'fastify';
import { createAccount } from '../../src/accounts/service.ts';
import { type BuildOptions, buildApp } from '../../src/app.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Engine } from '../../src/db/database.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export interface TestApp {
  app: FastifyInstance;
  url: string;
  database: TestDatabase;
  config: Config;
  /** The first account's key. */
  key: string;
  accountId: string;
  /** Sends a request through the real listening server. */
  request(method: string, path: string, opts?: RequestOpts): Promise<TestResponse>;
  newAccount(name?: string): Promise<{ accountId: string; key: string }>;
  close(): Promise<void>;
}

export interface RequestOpts {
  body?: unknown;
  rawBody?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function startTestApp(
  engine: Engine,
  env: Record<string, string> = {},
  shared?: { database: TestDatabase },
  /** e.g. a logger whose lines the test reads. */
  options: BuildOptions = {},
): Promise<TestApp> {
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env });
  const database = shared?.database ?? (await createTestDatabase(engine));
  const app = await buildApp({ config, database, baseUrl: '' }, options);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  const first = await createAccount(database.db, 'test');
  const t: TestApp = {
    app,
    url,
    database,
    config,
    key: first.apiKey,
    accountId: first.account.id,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? t.key : opts.key;
      if (key !== null) headers.authorization ??= `Token ${key}`;
      let body: string | undefined;
      if (opts.rawBody !== undefined) body = opts.rawBody;
      else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/vnd.api+json';
      }
      const res = await fetch(`${url}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
    async newAccount(name = 'other') {
      const a = await createAccount(database.db, name);
      return { accountId: a.account.id, key: a.apiKey };
    },
    async close() {
      await app.close();
      if (!shared) await database.destroy();
    },
  };
  return t;
}

export const trBody = (attributes: Record<string, unknown>) => ({
  data: { type: 'tracking_request', attributes },
});
