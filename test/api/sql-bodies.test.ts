import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { seed } from '../../src/cli/seed.ts';
import type { Database } from '../../src/db/database.ts';
import { BATCH_SLOTS } from '../../src/shipments/sql-bodies/queries.ts';
import { shipmentText } from '../../src/shipments/sql-bodies/service.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// Parity of the database path of the hot reads (src/shipments/sql-bodies/) with the JavaScript
// serializers: two servers on one database, one with sqlBodies off, asked the same URLs. Whole
// documents are compared (members, their order, values), so a column added to a serializer and not
// to the SQL (or the reverse) fails here without naming it first.

const LIST = '/v2/shipments';

/** Reads `/v2/shipments/<id>?include=containers` for each id at once; prints their status lines. */
const CLIENT = `const net = require('node:net');
const [port, key, ...ids] = process.argv.slice(1);
Promise.all(ids.map(() => new Promise((ok, fail) => { const c = net.connect(Number(port), '127.0.0.1', () => ok(c)); c.on('error', fail); })))
  .then((socks) => {
    const answers = socks.map((c) => new Promise((ok) => { let s = ''; c.on('data', (d) => (s += d)); c.on('end', () => ok(s.slice(0, 12))); }));
    socks.forEach((c, i) => c.write('GET /v2/shipments/' + ids[i] + '?include=containers HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Token ' + key + '\\r\\nConnection: close\\r\\n\\r\\n'));
    return Promise.all(answers);
  })
  .then((s) => console.log(JSON.stringify(s)));`;

/** The database with every statement of the batched read path (queryRows) counted. */
function countingStatements(database: Database): { counting: Database; count: { n: number } } {
  const count = { n: 0 };
  const counting: Database = {
    ...database,
    queryRows: (st, values) => {
      count.n++;
      return database.queryRows(st, values);
    },
  };
  return { counting, count };
}

for (const engine of ENGINES) {
  describe(`bodies built in SQL equal the serializers' [${engine}]`, () => {
    let t: TestApp;
    let js: FastifyInstance;
    let jsUrl: string;
    let other: { accountId: string; key: string };
    const shipmentIds: string[] = [];
    const containerIds: string[] = [];

    before(async () => {
      t = await startTestApp(engine, { RESPONSE_CACHE_MB: '0', RATE_LIMIT_DEFAULT_PER_MINUTE: '100000' });
      js = await buildApp({ config: t.config, database: t.database, baseUrl: '', sqlBodies: false });
      await js.listen({ port: 0, host: '127.0.0.1' });
      const addr = js.server.address();
      jsUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
      const db = t.database.db;
      other = await t.newAccount('other');
      // Journeys through the real engine: ref numbers, tags, a stopped one, one box back empty.
      await seedShipment(db, t.accountId, { refNumbers: ['PO-1', 'ünïcødé "quoted"\\'], tags: ['a', 'b'] });
      await seedShipment(db, t.accountId, {
        containers: ['CSQU3054383'],
        stopped: { at: new Date('2024-05-01T00:00:00.123Z'), reason: 'cancelled_by_user' },
      });
      await seedShipment(db, other.accountId);
      // Volume and variety (lines, ports, vessels, terminals) from the bulk seeder.
      await seed(db, {
        accountId: t.accountId,
        shipments: 14,
        containersPerShipment: 2,
        eventsPerContainer: 6,
      });
      // Edge cases the journeys do not reach.
      const ships = await db
        .selectFrom('shipments')
        .select('id')
        .where('account_id', '=', t.accountId)
        .orderBy('created_at')
        .execute();
      shipmentIds.push(...ships.map((s) => s.id));
      const [a, b, c] = shipmentIds.slice(2);
      await db
        .updateTable('shipments')
        .set({
          scac: 'ZZZZ',
          port_of_lading_locode: 'XXQQQ',
          destination_locode: null,
          customer_name: 'Ac"me',
        })
        .where('id', '=', a!)
        .execute();
      await db.updateTable('shipments').set({ port_of_discharge_locode: '' }).where('id', '=', b!).execute();
      await db.deleteFrom('transport_events').where('shipment_id', '=', c!).execute();
      await db.deleteFrom('containers').where('shipment_id', '=', c!).execute();
      const boxes = await db
        .selectFrom('containers')
        .select('id')
        .where('account_id', '=', t.accountId)
        .orderBy('number')
        .execute();
      containerIds.push(...boxes.map((r) => r.id));
      await db
        .updateTable('containers')
        .set({ equipment_type: 'open_top', weight_in_lbs: '12345.50', equipment_length: 40 })
        .where('id', '=', containerIds[0]!)
        .execute();
      await db
        .updateTable('containers')
        .set({ equipment_type: 'flat_rack', empty_terminated_at: new Date('2024-06-01T10:00:00.999Z') })
        .where('id', '=', containerIds[1]!)
        .execute();
      // Terminal data (migrations/0039): a discharged box the terminal reports held, with fees,
      // last free days from two sources, an appointment and a terminal check; another available.
      await sql`update containers set current_status = 'grounded', availability_known = true,
        available_for_pickup = false, location_at_pod_terminal = 'Row 12 "B"',
        pod_full_out_chassis_number = 'CH-1',
        holds_at_pod_terminal = '[{"name":"customs","status":"hold","description":"exam"}]'::jsonb,
        fees_at_pod_terminal = '[{"type":"demurrage","amount":150.5,"currency_code":"USD"}]'::jsonb,
        pickup_lfd_terminal = '2024-06-03T00:00:00Z', pickup_lfd_rail = '2024-06-04T00:00:00.120Z',
        pickup_appointment_at = '2024-06-02T08:30:00Z' where id = ${containerIds[0]!}`.execute(db);
      await sql`insert into container_terminal_checks (container_id, account_id, checked_at)
        values (${containerIds[0]!}, ${t.accountId}, '2024-06-02T01:02:03.456Z')`.execute(db);
      await sql`update containers set current_status = 'grounded', availability_known = true,
        available_for_pickup = true, pickup_lfd_line = '2024-06-05T00:00:00Z' where id = ${containerIds[1]!}`.execute(
        db,
      );
      // A tracking request waiting for its retry: next_attempt_at is shown only then.
      await sql`update tracking_requests set status = 'pending', next_attempt_at = now(), is_retrying = true,
        retry_count = 2 where id = (select id from tracking_requests where account_id = ${t.accountId}
        order by created_at limit 1)`.execute(db);
      await sql`update transport_events set "timestamp" = null where container_id = ${containerIds[2]!}
        and id = (select min(id::text)::uuid from transport_events where container_id = ${containerIds[2]!})`.execute(
        db,
      );
    });
    after(async () => {
      await js.close();
      await t.close();
    });

    async function same(path: string, key = t.key): Promise<void> {
      const ask = (base: string) =>
        fetch(`${base}${path}`, { headers: { authorization: `Token ${key}`, 'cache-control': 'no-cache' } });
      const [fast, ref] = await Promise.all([ask(t.url), ask(jsUrl)]);
      const [fastText, refText] = await Promise.all([fast.text(), ref.text()]);
      assert.equal(fast.status, ref.status, `${path}: status`);
      assert.equal(
        fast.headers.get('content-type'),
        ref.headers.get('content-type'),
        `${path}: content type`,
      );
      // Parsed and written again: number spelling may differ (1.50 / 1.5), members and order may not.
      const [a, b] = [fastText, refText].map((s) => JSON.stringify(JSON.parse(s), null, 1).split('\n'));
      const at = a!.findIndex((line, i) => line !== b![i]);
      if (at === -1 && a!.length === b!.length) return;
      const near = (lines: string[]) => lines.slice(Math.max(0, at - 12), at + 4).join('\n');
      assert.fail(`${path}: documents differ at line ${at}\nSQL:\n${near(a!)}\nJS:\n${near(b!)}`);
    }

    test('a shipment, with and without its containers, and the 404s', async () => {
      for (const id of shipmentIds) {
        await same(`/v2/shipments/${id}`);
        await same(`/v2/shipments/${id}?include=containers`);
      }
      await same(`/v2/shipments/${shipmentIds[0]}?include=containers,port_of_lading`);
      await same(`/v2/shipments/${randomUUID()}?include=containers`);
      await same('/v2/shipments/not-a-uuid');
      await same(`/v2/shipments/${shipmentIds[0]}`, other.key);
      await same(`/v2/shipments/${shipmentIds[0]}?include=nonsense`);
    });

    test('reads that arrive together share a statement, each answered with its own document', async () => {
      // Batched look-ups (src/db/batched-rows.ts): every shipment at once, twice over, with and
      // without containers, in capitals, unknown, and the same ids under another account's key.
      const theirs = await t.database.db
        .selectFrom('shipments')
        .select('id')
        .where('account_id', '=', other.accountId)
        .execute();
      const asked: Array<[string, string]> = [];
      for (const id of [...shipmentIds, ...shipmentIds]) {
        asked.push([`/v2/shipments/${id}?include=containers`, t.key]);
        asked.push([`/v2/shipments/${id}`, t.key]);
        asked.push([`/v2/shipments/${id}?include=containers`, other.key]);
      }
      asked.push([`/v2/shipments/${shipmentIds[1]!.toUpperCase()}?include=containers`, t.key]);
      asked.push([`/v2/shipments/${randomUUID()}?include=containers`, t.key]);
      for (const { id } of theirs) {
        asked.push([`/v2/shipments/${id}?include=containers`, other.key]);
        asked.push([`/v2/shipments/${id}?include=containers`, t.key]);
      }
      const get = (base: string, [path, key]: [string, string]) =>
        fetch(`${base}${path}`, { headers: { authorization: `Token ${key}` } }).then(async (r) => ({
          status: r.status,
          body: JSON.parse(await r.text()) as unknown,
        }));
      const together = await Promise.all(asked.map((a) => get(t.url, a)));
      for (const [i, a] of asked.entries()) {
        const ref = await get(jsUrl, a);
        assert.deepEqual(together[i], ref, `${a[0]} (${a[1] === t.key ? 'owner' : 'other account'})`);
      }
      assert.ok(together.filter((r) => r.status === 200).length > shipmentIds.length * 2);

      // In the process: one statement answers many look-ups, and each gets its own row.
      const { counting, count } = countingStatements(t.database);
      const ids = [...shipmentIds, ...shipmentIds.slice(0, 5), randomUUID()];
      const texts = await Promise.all(
        ids.map((id) => shipmentText(counting, t.accountId, id, new Set(['containers']))),
      );
      // A few go alone while nothing is in flight (one per core, within the pool); the rest wait and share.
      const statements = count.n;
      assert.ok(statements <= 8 + Math.ceil(ids.length / BATCH_SLOTS), `${statements} statements`);
      assert.ok(statements < ids.length / 2, `${statements} statements for ${ids.length} look-ups`);
      for (const [i, id] of ids.entries()) {
        const alone = await shipmentText(t.database, t.accountId, id, new Set(['containers']));
        assert.equal(texts[i]?.toString(), alone?.toString(), id);
      }
      assert.equal(texts.at(-1), undefined);
    });

    test('reads that arrive together over HTTP share a statement', async () => {
      // The requests reach the server as separate I/O events. PGlite runs a statement synchronously,
      // so unless the database path lets the event loop turn before its statement
      // (src/db/database.ts, openPglite), each request's look-up ran alone: one statement per read.
      const { counting, count } = countingStatements(t.database);
      const app = await buildApp({ config: t.config, database: counting, baseUrl: '' });
      await app.listen({ port: 0, host: '127.0.0.1' });
      try {
        const addr = app.server.address();
        const port = typeof addr === 'object' && addr ? addr.port : 0;
        const ids = Array.from({ length: 40 }, (_, i) => shipmentIds[i % shipmentIds.length]!);
        // From another process (in this one, the client's writes and the server's reads take turns
        // on one event loop): every connection open first, then every request written at once.
        // Whether two requests are read in one turn is up to the machine's scheduling: on a busy CI
        // host a burst can reach the server one request at a time. So up to three bursts, of which
        // one must share; without the event-loop turn none ever does (40 of 40, every time).
        const counts: number[] = [];
        for (let burst = 0; burst < 3 && !counts.some((n) => n < ids.length); burst++) {
          count.n = 0;
          const { stdout: out } = await promisify(execFile)(process.execPath, [
            '-e',
            CLIENT,
            String(port),
            t.key,
            ...ids,
          ]);
          const statuses = JSON.parse(out.toString()) as string[];
          assert.deepEqual(new Set(statuses), new Set(['HTTP/1.1 200']));
          counts.push(count.n);
        }
        assert.ok(
          counts.some((n) => n < ids.length),
          `statements for ${ids.length} reads, per burst: ${counts.join(', ')}`,
        );
      } finally {
        await app.close();
      }
    });

    test('a container and its transport events, paged, and the 404s', async () => {
      for (const id of containerIds) {
        await same(`/v2/containers/${id}`);
        await same(`/v2/containers/${id}/transport_events`);
      }
      const id = containerIds[2]!;
      await same(`/v2/containers/${id}/transport_events?page[size]=2&page[number]=2`);
      await same(`/v2/containers/${id}/transport_events?page[size]=4&page[number]=9`);
      await same(`/v2/containers/${id.toUpperCase()}/transport_events?page[size]=3`);
      for (const box of containerIds.slice(0, 6)) {
        for (const include of [
          'vessel,location',
          'terminal',
          'location,terminal,vessel',
          'vessel',
          'shipment,vessel',
        ])
          await same(`/v2/containers/${box}/transport_events?include=${include}`);
      }
      await same(`/v2/containers/${id}/transport_events?include=vessel,location&page[size]=3&page[number]=2`);
      await same(`/v2/containers/${randomUUID()}/transport_events`);
      await same(`/v2/containers/${id}`, other.key);
      await same(`/v2/containers/${id}/transport_events`, other.key);
      await same('/v2/containers/x/transport_events?page[size]=0');
    });

    test("a container's events after they change: the stored list (migrations/0048) follows", async () => {
      const db = t.database.db;
      const [box, moved] = [containerIds[3]!, containerIds[4]!];
      const first = (container: string) =>
        sql`(select id from transport_events where container_id = ${container} order by "timestamp" nulls last, key limit 1)`;
      await sql`update transport_events set invalidated_at = '2024-07-01T00:00:00Z' where id = ${first(box)}`.execute(
        db,
      );
      await sql`update transport_events set location_locode = 'NLRTM', vessel_id = null where id = (
        select id from transport_events where container_id = ${box} order by "timestamp" desc nulls first, key desc limit 1)`.execute(
        db,
      );
      await sql`update transport_events set "timestamp" = '2099-01-01T00:00:00Z' where id = ${first(moved)}`.execute(
        db,
      );
      for (const id of [box, moved]) {
        await same(`/v2/containers/${id}/transport_events?include=location,terminal,vessel`);
        await same(`/v2/containers/${id}/transport_events?page[size]=2`);
      }
      await sql`delete from transport_events where container_id = ${moved}`.execute(db);
      await same(`/v2/containers/${moved}/transport_events?include=location,vessel`);
    });

    test('shipment list pages, sorts, includes and filters', async () => {
      for (const sort of ['', 'sort=created_at&', 'sort=updated_at&', 'sort=-updated_at&']) {
        for (const page of [
          '',
          'page[size]=4&page[number]=2',
          'page[size]=5&page[number]=4',
          'page[number]=50',
          // Every page of 3, the back half read from the index's other end (pageIds).
          ...[1, 2, 3, 4, 5, 6, 7].map((n) => `page[size]=3&page[number]=${n}`),
        ]) {
          await same(`${LIST}?${sort}${page}`);
          await same(`${LIST}?${sort}include=containers&${page}`);
        }
      }
      await same(`${LIST}?include=containers`, other.key);
      await same(`${LIST}?filter[tracking_stopped]=true&include=containers`);
      await same(`${LIST}?page[size]=500`);
      await same(`${LIST}?sort=nonsense`);
    });

    test('container list pages and sorts; filtered and included lists', async () => {
      for (const sort of ['', 'sort=created_at&', 'sort=updated_at&', 'sort=-updated_at&']) {
        for (const page of [
          '',
          'page[size]=4&page[number]=2',
          'page[size]=7&page[number]=4',
          'page[number]=50',
          ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((n) => `page[size]=3&page[number]=${n}`),
        ]) {
          await same(`/v2/containers?${sort}${page}`);
        }
      }
      await same('/v2/containers', other.key);
      await same('/v2/containers?include=shipment');
      await same(`/v2/containers?filter[shipment_id]=${shipmentIds[0]}`);
    });

    test('tracking request list pages and sorts; filtered and included lists', async () => {
      for (const sort of ['', 'sort=created_at&', 'sort=updated_at&', 'sort=-updated_at&']) {
        for (const page of [
          '',
          'page[size]=4&page[number]=2',
          'page[size]=7&page[number]=3',
          'page[number]=50',
          ...[1, 2, 3, 4, 5, 6, 7].map((n) => `page[size]=3&page[number]=${n}`),
        ]) {
          await same(`/v2/tracking_requests?${sort}${page}`);
        }
      }
      await same('/v2/tracking_requests', other.key);
      await same('/v2/tracking_requests?filter[status]=created');
      await same('/v2/tracking_requests?filter[status]=created&include=tracked_object');
      // Included shipments: in the order the page first names them, once each; a request with no
      // shipment yet names none.
      const db = t.database.db;
      const [first] = shipmentIds;
      await sql`insert into tracking_requests (id, account_id, request_number, request_type, scac, status, shipment_id)
        values (${randomUUID()}, ${t.accountId}, 'PARITYTWICE', 'bill_of_lading', 'MAEU', 'tracking_stopped', ${first!}),
               (${randomUUID()}, ${t.accountId}, 'PARITYNONE', 'bill_of_lading', 'MAEU', 'failed', null)`.execute(
        db,
      );
      for (const q of [
        'include=tracked_object',
        'include=shipment&page[size]=4&page[number]=2',
        'include=tracked_object,shipment&sort=updated_at&page[size]=7',
        'include=tracked_object&sort=created_at&page[size]=100',
        'include=tracked_object&page[number]=50',
        ...[1, 2, 3, 4, 5, 6, 7, 8].map(
          (n) => `include=tracked_object&sort=-updated_at&page[size]=3&page[number]=${n}`,
        ),
      ])
        await same(`/v2/tracking_requests?${q}`);
      await same('/v2/tracking_requests?include=tracked_object', other.key);
    });

    test("the list's total follows deleted shipments (the maintained count)", async () => {
      const db = t.database.db;
      const gone = shipmentIds[4]!;
      await sql`delete from tracking_requests where shipment_id = ${gone}`.execute(db);
      for (const table of ['transport_events', 'raw_events', 'estimated_events', 'containers'])
        await sql`delete from ${sql.table(table)} where shipment_id = ${gone}`.execute(db);
      await db.deleteFrom('shipments').where('id', '=', gone).execute();
      await same(`${LIST}?page[size]=3`);
      await same(`${LIST}?include=containers&page[size]=7&page[number]=2`);
      await same('/v2/containers?page[size]=5&page[number]=3');
      await same('/v2/tracking_requests?page[size]=3');
    });

    test("the tracking-request list's total follows creates (the maintained count, migrations/0049)", async () => {
      const total = async () =>
        (
          await t.request('GET', '/v2/tracking_requests?page[size]=1', {
            headers: { 'cache-control': 'no-cache' },
          })
        ).body.meta.total as number;
      const before = await total();
      const created = await Promise.all(
        ['PARITYCOUNT1', 'PARITYCOUNT2'].map((n) =>
          t.request('POST', '/v2/tracking_requests', {
            body: trBody({ request_type: 'bill_of_lading', request_number: n, scac: 'MAEU' }),
          }),
        ),
      );
      assert.deepEqual(
        created.map((r) => r.status),
        [201, 201],
      );
      assert.equal(await total(), before + 2);
      await same('/v2/tracking_requests?page[size]=4&page[number]=2');
    });
  });
}
