import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './process.ts';

// A PgBouncer of a test's own, in transaction mode, in front of one database of the shared
// PostgreSQL: its config in a temporary directory, listening on a free loopback port, no auth.

/** The pgbouncer executable, or null when it is not installed (`apt-get install pgbouncer`). */
export function findPgbouncer(): string | null {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((d) => join(d, 'pgbouncer')).find((p) => existsSync(p)) ?? null;
}

export interface Bouncer {
  /** postgres:// URL of the database through PgBouncer. */
  url: string;
  stop(): Promise<void>;
}

/** Starts PgBouncer (pool_mode=transaction, `poolSize` server connections) in front of `databaseUrl`. */
export async function startPgbouncer(bin: string, databaseUrl: string, poolSize = 2): Promise<Bouncer> {
  const target = new URL(databaseUrl);
  const db = target.pathname.slice(1);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'trk-pgb-'));
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    `[databases]
${db} = host=${target.hostname} port=${target.port || 5432} dbname=${db} user=${decodeURIComponent(target.username) || 'postgres'}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = transaction
default_pool_size = ${poolSize}
max_client_conn = 200
ignore_startup_parameters = extra_float_digits
`,
  );
  // PgBouncer refuses to run as root: as root it is told to become `nobody`, who must read the config.
  chmodSync(dir, 0o755);
  chmodSync(ini, 0o644);
  const args = userInfo().uid === 0 ? ['-u', 'nobody', ini] : [ini];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const until = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > until) {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`pgbouncer did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `postgres://postgres@127.0.0.1:${port}/${db}`,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** For a skip message: why PgBouncer tests cannot run here, or false. */
export function pgbouncerMissing(): string | false {
  if (!process.env.TEST_DATABASE_URL) return 'needs TEST_DATABASE_URL';
  if (!findPgbouncer()) return 'needs pgbouncer (apt-get install pgbouncer)';
  return false;
}
