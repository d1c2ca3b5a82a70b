import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, type Spawned, spawnNode } from '../helpers/process.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { spawnSimulator } from '../helpers/simulator.ts';

// An API process and a worker process on one PostgreSQL database, with the carrier simulator and a
// webhook receiver: the whole service as operators run it, for fault tests.

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

export interface Service {
  key: string;
  api: Spawned;
  worker: Spawned;
  apiPort: number;
  workerPort: number;
  /** One request, never retried: a refused connection means the process died. */
  call(method: string, path: string, body?: unknown, port?: number): Promise<Answer>;
  /** Both processes still run (no supervisor restarts them). */
  assertAlive(): void;
  close(): Promise<void>;
}

export async function startService(
  databaseUrl: string,
  extraEnv: Record<string, string> = {},
): Promise<Service> {
  const sim = await spawnSimulator();
  const rx = await startReceiver();
  rx.on('/all', () => ({ status: 204 }));
  const dir = mkdtempSync(join(tmpdir(), 'trk-faults-'));
  const carriers = join(dir, 'carriers.yaml');
  writeFileSync(
    carriers,
    `- scac: MAEU\n  adapter: dcsa-tnt-v2\n  base_url: ${sim.url}\n  auth: { type: headers, headers: { x-api-key: unused } }\n  requests_per_minute: 100000\n  number_types: [bill_of_lading, booking_number, container]\n  timeout_ms: 5000\n`,
  );
  const env = {
    DATABASE_URL: databaseUrl,
    CARRIERS_CONFIG: carriers,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DB_POOL_SIZE: '4',
    WORKER_POLL_INTERVAL_MS: '25',
    WORKER_LEASE_MS: '1500',
    TRACKING_RETRY_BASE_MS: '5',
    REFRESH_INTERVAL_MS: '200',
    REFRESH_NEAR_ARRIVAL_MS: '200',
    RATE_LIMIT_CREATE_PER_MINUTE: '100000',
    RATE_LIMIT_DEFAULT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOWLIST: '127.0.0.0/8',
    WEBHOOK_RETRY_SCHEDULE: Array(20).fill('50ms').join(','),
    ...extraEnv,
  };
  const apiPort = await freePort();
  const workerPort = await freePort();
  const api = spawnNode(['src/main.ts', '--role', 'api'], { ...env, PORT: String(apiPort) });
  const worker = spawnNode(['src/main.ts', '--role', 'worker'], { ...env, PORT: String(workerPort) });
  const close = async () => {
    for (const p of [api, worker]) p.kill('SIGKILL');
    await Promise.all([api.exited, worker.exited]);
    await sim.close();
    await rx.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const [, key] = await api.waitFor(/api key: (\S+)/, 30_000);
    const call = async (method: string, path: string, body?: unknown, port = apiPort): Promise<Answer> => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { authorization: `Token ${key}`, 'content-type': 'application/vnd.api+json' },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(15_000),
      });
      const text = await res.text();
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = text;
      }
      return { status: res.status, headers: res.headers, body: json };
    };
    // Wait until both answer (the API prints the key before listening).
    for (const port of [apiPort, workerPort]) {
      for (let i = 0; ; i++) {
        try {
          await call('GET', '/healthz', undefined, port);
          break;
        } catch (err) {
          if (i > 300) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
    const hook = await call('POST', '/v2/webhooks', { data: { attributes: { url: rx.url('/all') } } });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    return {
      key: key!,
      api,
      worker,
      apiPort,
      workerPort,
      call,
      assertAlive() {
        assert.equal(api.child.exitCode, null, `API process died:\n${api.output()}`);
        assert.equal(worker.child.exitCode, null, `worker process died:\n${worker.output()}`);
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A request during an outage: it either worked, or is a JSON:API 503 telling when to retry. */
export function assertOkOrUnavailable(a: Answer, what: string): 'ok' | 'unavailable' {
  if (a.status >= 200 && a.status < 300) return 'ok';
  assert.equal(a.status, 503, `${what}: ${a.status} ${JSON.stringify(a.body)}`);
  assert.ok(Array.isArray(a.body?.errors), `${what}: 503 body is JSON:API: ${JSON.stringify(a.body)}`);
  assert.equal(a.body.errors[0].status, '503');
  assert.equal(a.body.errors[0].code, 'database_unavailable');
  assert.equal(typeof a.body.errors[0].title, 'string');
  assert.equal(typeof a.body.errors[0].detail, 'string');
  assert.match(a.headers.get('retry-after') ?? '', /^\d+$/, `${what}: Retry-After`);
  return 'unavailable';
}

/** Creates a tracking request, retrying while the database is unavailable; true once it exists. */
export async function createTracking(svc: Service, number: string, until: number): Promise<void> {
  for (;;) {
    const a = await svc.call('POST', '/v2/tracking_requests', {
      data: { attributes: { request_type: 'bill_of_lading', request_number: number, scac: 'MAEU' } },
    });
    // 422 duplicate: an earlier attempt committed although its answer was lost with the connection.
    if (a.status === 422 && a.body.errors?.[0]?.code === 'duplicate') return;
    if (assertOkOrUnavailable(a, `create ${number}`) === 'ok') return;
    assert.ok(Date.now() < until, `create ${number}: still unavailable`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
