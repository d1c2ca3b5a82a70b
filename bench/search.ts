import { sql } from 'kysely';
import { createAccount } from '../src/accounts/service.ts';
import { search } from '../src/search/service.ts';
import { createBenchDatabase } from './lib/db.ts';

// `node bench/search.ts`: GET /v2/search's queries on a large account (default 1,000,000
// containers on 500,000 shipments, plus 100,000 tracking requests without a shipment), on this
// machine's PostgreSQL in a database of its own, dropped at the end. Prints the median and worst
// time of each kind of term. SEARCH_BENCH_CONTAINERS scales it (e.g. 20000 for a quick look).
// Bench tooling reads its environment directly (it is not the service).

const containers = Number(process.env.SEARCH_BENCH_CONTAINERS ?? 1_000_000);
const adminUrl = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const shipments = Math.max(1, Math.floor(containers / 2));
const requests = Math.max(1, Math.floor(containers / 10));
const log = (m: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);

const bench = await createBenchDatabase(adminUrl);
const db = bench.database.db;
try {
  const { account } = await createAccount(db, 'search-bench');
  const a = account.id;
  log(`seeding ${shipments} shipments, ${containers} containers, ${requests} requests in ${bench.name}`);
  // Set-based inserts: the numbers follow the carriers' shapes (4 letters + digits).
  await sql`insert into shipments (id, account_id, scac, request_type, normalized_number, bill_of_lading_number,
                                   ref_numbers, tags)
    select gen_random_uuid(), ${a}, 'MSCU', 'bill_of_lading', 'MEDU' || lpad(i::text, 8, '0'),
           'MEDU' || lpad(i::text, 8, '0'), array['PO-' || (i * 7919 % 1000003)::text],
           case when i % 10 = 0 then array['priority'] else '{}'::text[] end
      from generate_series(1, ${shipments}) i`.execute(db);
  await sql`insert into containers (id, account_id, shipment_id, number)
    select gen_random_uuid(), ${a}, s.id, 'MSCU' || lpad((s.n * 2 + k)::text, 7, '0')
      from (select id, row_number() over (order by normalized_number) as n from shipments) s,
           generate_series(0, 1) k`.execute(db);
  await sql`insert into tracking_requests (id, account_id, request_number, request_type, scac, ref_numbers)
    select gen_random_uuid(), ${a}, 'BK' || lpad(i::text, 9, '0'), 'booking_number', 'MSCU',
           array['REQ-' || i::text]
      from generate_series(1, ${requests}) i`.execute(db);
  await sql`analyze`.execute(db);
  log('seeded; searching');

  const mid = Math.floor(shipments / 2);
  const terms: Array<[string, string]> = [
    ['exact B/L', `MEDU${String(mid).padStart(8, '0')}`],
    ['B/L prefix, lower case', `medu${String(mid).padStart(8, '0').slice(0, 6)}`],
    ['container number', `MSCU${String(mid * 2).padStart(7, '0')}`],
    [
      'container partial',
      String(mid * 2)
        .padStart(7, '0')
        .slice(1),
    ],
    ['ref number', `PO-${(mid * 7919) % 1000003}`],
    ['tag (many hits)', 'priority'],
    ['request number', `BK${String(Math.floor(requests / 2)).padStart(9, '0')}`],
    ['no match', 'ZZZZNOTHING'],
  ];
  const rows: string[] = [];
  for (const [label, term] of terms) {
    const times: number[] = [];
    let hits = 0;
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      hits = (await search(db, a, term)).length;
      times.push(performance.now() - t0);
    }
    times.sort((x, y) => x - y);
    rows.push(
      `| ${label} | \`${term}\` | ${hits} | ${times[3]!.toFixed(1)} ms | ${times.at(-1)!.toFixed(1)} ms |`,
    );
  }
  process.stdout.write(
    `search on ${containers} containers\n\n| term | query | hits | median | worst |\n|---|---|---|---|---|\n${rows.join('\n')}\n`,
  );
} finally {
  await bench.drop();
}
