import { readFileSync } from 'node:fs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createAccount, createApiKey } from '../src/accounts/service.ts';
import { openPostgres } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import type { DB } from '../src/db/schema.ts';
import { search } from '../src/search/service.ts';
import { API_ENV } from './lib/context.ts';
import { createBenchDatabase } from './lib/db.ts';
import { freePort, startNode, waitForHttp } from './lib/proc.ts';

// `node bench/search.ts`: GET /v2/search on a large account (default 1,000,000 containers on
// 500,000 shipments, 500,000 shipment custom field values, plus 100,000 tracking requests without
// a shipment), on this machine's PostgreSQL. The data is made by set-based SQL (generate_series, in
// chunks), never row by row. Each kind of term is asked over HTTP of a running API process
// (`node src/main.ts --role api`), one request at a time: p50/p99 wall-clock per request; then
// the plans of the three search statements (EXPLAIN ANALYZE) show which indexes serve them.
// SEARCH_BENCH_CONTAINERS scales it (e.g. 20000 for a quick look). SEARCH_BENCH_DATABASE names a
// database to keep: created and seeded on the first run, only searched on later ones (the seed
// of 1M takes minutes). Without it a bench_<random> database is made and dropped at the end.
// Bench tooling reads its environment directly (it is not the service).

const containers = Number(process.env.SEARCH_BENCH_CONTAINERS ?? 1_000_000);
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const keepName = process.env.SEARCH_BENCH_DATABASE;
const repeats = Number(process.env.SEARCH_BENCH_REPEATS ?? 200);
const shipments = Math.max(1, Math.floor(containers / 2));
const requests = Math.max(1, Math.floor(containers / 10));
const CHUNK = 50_000;
const ACCOUNT = 'search-bench';
const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

async function kept(name: string) {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`SEARCH_BENCH_DATABASE: bad name ${name}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (exists.rowCount === 0) await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  const database = await openPostgres(u.toString(), 4);
  await migrate(database);
  return { name, url: u.toString(), database, drop: async () => database.close() };
}

const bench = keepName ? await kept(keepName) : await createBenchDatabase(adminUrl);
const db = bench.database.db;
// Shipment i's id is md5('s' || i): containers and values name their shipment without a join.
const sid = (i: string) => sql.raw(`md5('${bench.name}:s' || (${i})::text)::uuid`);

/** The whole seed in one transaction: a failed seed leaves no account to mistake for seeded. */
async function seed(tx: Kysely<DB>, a: string) {
  const def = (
    await sql<{ id: string }>`insert into custom_field_definitions (id, account_id, entity_type, api_slug,
        display_name, data_type) values (gen_random_uuid(), ${a}, 'Shipment', 'po_ref', 'PO ref', 'short_text')
      returning id`.execute(tx)
  ).rows[0]!.id;
  log(`seeding ${shipments} shipments, ${containers} containers, ${requests} requests in ${bench.name}`);
  for (let lo = 1; lo <= shipments; lo += CHUNK) {
    const hi = Math.min(shipments, lo + CHUNK - 1);
    // Numbers follow the carriers' shapes (4 letters + digits).
    await sql`insert into shipments (id, account_id, scac, request_type, normalized_number,
                                     bill_of_lading_number, ref_numbers, tags)
      select ${sid('i')}, ${a}, 'MSCU', 'bill_of_lading', 'MEDU' || lpad(i::text, 8, '0'),
             'MEDU' || lpad(i::text, 8, '0'), array['PO-' || (i::bigint * 7919 % 1000003)::text],
             case when i % 10 = 0 then array['priority'] else '{}'::text[] end
        from generate_series(${lo}::int, ${hi}::int) i`.execute(tx);
    await sql`insert into containers (id, account_id, shipment_id, number)
      select gen_random_uuid(), ${a}, ${sid('i')}, 'MSCU' || lpad((i * 2 + k)::text, 7, '0')
        from generate_series(${lo}::int, ${hi}::int) i, generate_series(0, 1) k`.execute(tx);
    await sql`insert into custom_field_values (id, account_id, definition_id, entity_type, entity_id, value)
      select gen_random_uuid(), ${a}, ${def}, 'shipment', ${sid('i')},
             to_jsonb('Vendor ' || (i % 997)::text || ' order ' || (i::bigint * 31 % 1000003)::text)
        from generate_series(${lo}::int, ${hi}::int) i`.execute(tx);
    log(`  shipments ${hi}/${shipments}`);
  }
  for (let lo = 1; lo <= requests; lo += CHUNK) {
    const hi = Math.min(requests, lo + CHUNK - 1);
    await sql`insert into tracking_requests (id, account_id, request_number, request_type, scac, ref_numbers)
      select gen_random_uuid(), ${a}, 'BK' || lpad(i::text, 9, '0'), 'booking_number', 'MSCU',
             array['REQ-' || i::text]
        from generate_series(${lo}::int, ${hi}::int) i`.execute(tx);
  }
  log('seeded');
}

/** CPU milliseconds so far of a process (Linux /proc: utime + stime, 100 ticks a second). */
function cpuMsOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

try {
  const existing = await db
    .selectFrom('accounts')
    .select('id')
    .where('name', '=', ACCOUNT)
    .executeTakeFirst();
  let a: string;
  if (existing) {
    a = existing.id;
    log(`${bench.name} already seeded; searching`);
  } else {
    a = (await createAccount(db, ACCOUNT)).account.id;
    try {
      await db.transaction().execute((tx) => seed(tx, a));
    } catch (e) {
      await db.deleteFrom('accounts').where('id', '=', a).execute();
      throw e;
    }
    await sql`vacuum analyze`.execute(db);
  }
  const key = (await createApiKey(db, a, 'search-bench'))!.key;
  const port = await freePort();
  const api = startNode('api', ['src/main.ts', '--role', 'api'], {
    ...API_ENV,
    PORT: String(port),
    DATABASE_URL: bench.url,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, api, 60_000);

  const mid = Math.floor(shipments / 2);
  const terms: Array<[string, string]> = [
    ['exact B/L', `MEDU${String(mid).padStart(8, '0')}`],
    ['B/L prefix, lower case', `medu${String(mid).padStart(8, '0').slice(0, 6)}`],
    ['exact container number', `MSCU${String(mid * 2).padStart(7, '0')}`],
    [
      'container partial (digits)',
      String(mid * 2)
        .padStart(7, '0')
        .slice(1),
    ],
    ['ref number', `PO-${(mid * 7919) % 1000003}`],
    ['tag (a tenth of the shipments)', 'priority'],
    ['custom field value', `order ${(mid * 31) % 1000003}`],
    ['request number', `BK${String(Math.floor(requests / 2)).padStart(9, '0')}`],
    ['no match', 'ZZZZNOTHING'],
    ['word in every value', 'Vendor'],
    ['two characters, no match', 'zq'],
  ];
  // CPU per request (the machine is shared: wall-clock percentiles carry other people's load):
  // the API process, and the PostgreSQL backends serving this database (its pool's connections).
  const backends = async () =>
    (
      await sql<{ pid: number }>`select pid from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid()`.execute(db)
    ).rows.map((r) => r.pid);
  const cpu = async () => {
    const pids = await backends();
    const pg = pids.reduce((sum, pid) => sum + (cpuMsOf(pid) ?? 0), 0);
    return { api: cpuMsOf(api.pid) ?? 0, pg, pids: pids.join(',') };
  };
  const rows: string[] = [];
  const all: number[] = [];
  for (const [label, term] of terms) {
    const target = `${url}/v2/search?query=${encodeURIComponent(term)}`;
    const get = async () => {
      const res = await fetch(target, { headers: { authorization: `Token ${key}` } });
      const body = (await res.json()) as { data: unknown[] };
      if (res.status !== 200) throw new Error(`${term}: ${res.status} ${JSON.stringify(body)}`);
      return body.data.length;
    };
    for (let i = 0; i < 5; i++) await get(); // warm the pool, the plans and the pages
    const times: number[] = [];
    let hits = 0;
    const c0 = await cpu();
    for (let i = 0; i < repeats; i++) {
      const t0 = performance.now();
      hits = await get();
      times.push(performance.now() - t0);
    }
    const c1 = await cpu();
    // Backends the pool opened or closed meanwhile would skew the PostgreSQL figure: say so.
    const pgUs = c0.pids === c1.pids ? `${Math.round(((c1.pg - c0.pg) * 1000) / repeats)} µs` : 'n/a';
    const apiUs = Math.round(((c1.api - c0.api) * 1000) / repeats);
    times.sort((x, y) => x - y);
    all.push(...times);
    rows.push(
      `| ${label} | \`${term}\` | ${hits} | ${pct(times, 50).toFixed(1)} ms | ${pct(times, 99).toFixed(1)} ms | ${apiUs} µs | ${pgUs} |`,
    );
    log(`${label}: p50 ${pct(times, 50).toFixed(1)} ms, p99 ${pct(times, 99).toFixed(1)} ms`);
  }
  await api.stop();
  all.sort((x, y) => x - y);

  // The plans: the search service's own statements, captured by a Kysely logger, explained.
  const pool = new pg.Pool({ connectionString: bench.url, max: 1 });
  const captured: Array<{ sql: string; params: readonly unknown[] }> = [];
  const spy = new Kysely<DB>({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      if (e.level === 'query') captured.push({ sql: e.query.sql, params: e.query.parameters });
    },
  });
  const plans: string[] = [];
  for (const [label, term] of terms) {
    captured.length = 0;
    await search(spy, a, term);
    for (const q of [...captured]) {
      const r = await pool.query(`explain (analyze, costs off) ${q.sql}`, q.params as unknown[]);
      const lines: string[] = r.rows.map((row: Record<string, string>) => row['QUERY PLAN']!);
      const scans = lines
        .join('\n')
        .matchAll(/(Index Only Scan using|Index Scan using|Bitmap Index Scan on|Seq Scan on) (\w+)/g);
      const used = [...new Set([...scans].map((m) => `${m[1]!.replace(/ (using|on)$/, '')} ${m[2]}`))].join(
        ', ',
      );
      const total = lines.find((l) => l.startsWith('Execution Time')) ?? '';
      plans.push(`- ${label}: ${used || 'no index'}; ${total}`);
    }
  }
  await spy.destroy();
  process.stdout.write(
    `search on ${containers} containers (${shipments} shipments, ${requests} tracking requests), ${repeats} sequential HTTP requests per term\n\n` +
      `| term | query | hits | p50 | p99 | API CPU/request | PostgreSQL CPU/request |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n` +
      `| all | | | ${pct(all, 50).toFixed(1)} ms | ${pct(all, 99).toFixed(1)} ms | | |\n\n` +
      `plans (shipments, containers, tracking requests statement of each term):\n${plans.join('\n')}\n`,
  );
} finally {
  await bench.drop();
}
