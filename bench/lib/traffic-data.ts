import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { openPglite } from '../../src/db/database.ts';
import type { DB } from '../../src/db/schema.ts';
import type { Ctx } from './context.ts';
import { startNode } from './proc.ts';

// The traffic scenarios' data, made as an operator makes it: an account and its key from
// `npm run cli -- accounts create`, shipments from `npm run cli -- seed` (due for refresh within
// the next 6 hours, as the seeder leaves them), then files of the ids the load draws from.

export interface TrafficData {
  accountId: string;
  key: string;
  shipments: number;
  seedSeconds: number;
  /** JSON files of ids for the load generator (bench/load/autocannon-child.ts `random`). */
  shipmentIds: string;
  containerIds: string;
  pages: string;
}

/** Runs `node src/cli/main.ts <args>` and returns its last stdout line parsed as JSON. */
async function cli(args: string[], env: Record<string, string>): Promise<any> {
  const proc = startNode('cli', ['src/cli/main.ts', ...args, '--json'], env);
  const code = await proc.exited;
  await proc.stop();
  const line = proc
    .output()
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  if (code !== 0 || !line)
    throw new Error(`cli ${args.join(' ')} failed (exit ${code}):\n${proc.output().slice(-2000)}`);
  return JSON.parse(line);
}

/**
 * Creates the account and seeds it through the CLI (`env` says which database: DATABASE_URL, or
 * DATA_DIR for embedded PGlite), then writes the id files into `dir`.
 */
export async function seedTraffic(
  ctx: Ctx,
  env: Record<string, string>,
  shipments: number,
  dir: string,
  read: () => Promise<{ db: Kysely<DB>; close(): Promise<void> }>,
): Promise<TrafficData> {
  const account = await cli(['accounts', 'create', 'bench-traffic'], env);
  ctx.log(`traffic: seeding ${shipments.toLocaleString('en')} shipments with npm run cli -- seed`);
  const started = performance.now();
  await cli(['seed', '--account', account.account_id, '--shipments', String(shipments)], env);
  const seedSeconds = (performance.now() - started) / 1000;
  ctx.log(`traffic: seeded in ${seedSeconds.toFixed(0)} s`);
  const { db, close } = await read();
  try {
    const s = await db
      .selectFrom('shipments')
      .select('id')
      .where('account_id', '=', account.account_id)
      .execute();
    const c = await db
      .selectFrom('containers')
      .select('id')
      .where('account_id', '=', account.account_id)
      .execute();
    const file = (name: string, ids: string[]) => {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify(ids));
      return path;
    };
    const pageCount = Math.ceil(s.length / 30);
    return {
      accountId: account.account_id,
      key: account.api_key,
      shipments: s.length,
      seedSeconds,
      shipmentIds: file(
        'shipments',
        s.map((r) => r.id),
      ),
      containerIds: file(
        'containers',
        c.map((r) => r.id),
      ),
      pages: file(
        'pages',
        Array.from({ length: pageCount }, (_, i) => String(i + 1)),
      ),
    };
  } finally {
    await close();
  }
}

/** Read access to an embedded data directory while no server owns it. */
export async function pgliteReader(dataDir: string): Promise<{ db: Kysely<DB>; close(): Promise<void> }> {
  const database = await openPglite(dataDir);
  return { db: database.db, close: () => database.close() };
}
