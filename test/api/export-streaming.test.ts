import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { seed } from '../../src/cli/seed.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

// A CSV export is streamed: the server reads the list a page at a time as the client takes the
// bytes, not all of it before the first byte (which would hold an account's 100,000 shipments in
// memory; bench/scenarios/export.ts measures that case). Proof that can fail: the client takes
// the first bytes, stops reading so the server is held back by TCP, then the last shipment of the
// list is changed. If the server had read the whole list ahead (buffering, or reading pages ahead
// of the client without bound), the rows still to come would show the shipment as it was.

const SHIPMENTS = 2000;
// ~6 KB per row: 2,000 rows are ~12 MB, well over what loopback TCP holds for a client that does
// not read (~4 MB measured) plus the page being written.
const REFS = 90;

for (const engine of ENGINES) {
  describe(`CSV export streaming [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_DEFAULT_PER_MINUTE: '1000' });
      await seed(t.database.db, {
        accountId: t.accountId,
        shipments: SHIPMENTS,
        containersPerShipment: 1,
        eventsPerContainer: 0,
        refresh: false,
      });
      await sql`update shipments set ref_numbers = array(
          select repeat('R', 60) || g::text || s.id::text from generate_series(1, ${REFS}) g
        ) from shipments s where s.id = shipments.id and shipments.account_id = ${t.accountId}`.execute(
        t.database.db,
      );
    });
    after(() => t.close());

    test('rows still to come are read after the first bytes went out', async () => {
      const last = await t.database.db
        .selectFrom('shipments')
        .select('id')
        .where('account_id', '=', t.accountId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const url = new URL(`${t.url}/v2/shipments?sort=created_at`);
      const chunks: Buffer[] = [];
      const { res, firstAt } = await new Promise<{ res: http.IncomingMessage; firstAt: number }>(
        (resolve, reject) => {
          const req = http.get(
            url,
            { headers: { authorization: `Token ${t.key}`, accept: 'text/csv' } },
            (res) => {
              res.once('data', (chunk: Buffer) => {
                chunks.push(chunk);
                res.pause();
                resolve({ res, firstAt: Date.now() });
              });
              res.once('error', reject);
            },
          );
          req.once('error', reject);
        },
      );
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/csv/);
      // Let the server write all it can until TCP holds it back.
      await new Promise((r) => setTimeout(r, 1000));
      await t.database.db
        .updateTable('shipments')
        .set({ tags: ['changed-after-first-byte'] })
        .where('id', '=', last.id)
        .execute();
      const text = await new Promise<string>((resolve, reject) => {
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        res.once('error', reject);
        res.resume();
      });
      const records = parse(text, { columns: true }) as Array<Record<string, string>>;
      assert.equal(records.length, SHIPMENTS, 'every page, each row once');
      assert.equal(new Set(records.map((r) => r.id)).size, SHIPMENTS);
      assert.ok(
        text.length > 8_000_000,
        `the export is larger than TCP holds in flight (${text.length} bytes)`,
      );
      const row = records.at(-1)!;
      assert.equal(row.id, last.id, 'sort=created_at: the last shipment comes last');
      assert.equal(
        row.tags,
        'changed-after-first-byte',
        `the last page was read after the first bytes arrived (${Date.now() - firstAt} ms later)`,
      );
    });

    // The seeded rows share their creation times (one statement per batch), so the pages after
    // the first are told apart by id: every list, every sort, each row exactly once and in order.
    test('every list and sort across pages: each row once, in the order of the JSON:API list', async () => {
      const cases: Array<[string, string]> = [
        ['/v2/shipments', 'shipments'],
        ['/v2/shipments?sort=-updated_at', 'shipments'],
        ['/v2/containers', 'containers'],
        ['/v2/containers?sort=created_at', 'containers'],
        ['/v2/tracking_requests', 'tracking_requests'],
        ['/v2/tracking_requests?sort=updated_at', 'tracking_requests'],
      ];
      for (const [path, table] of cases) {
        const res = await fetch(`${t.url}${path}`, {
          headers: { authorization: `Token ${t.key}`, accept: 'text/csv' },
        });
        assert.equal(res.status, 200, path);
        const ids = (parse(await res.text(), { columns: true }) as Array<{ id: string }>).map((r) => r.id);
        const sort = new URL(path, t.url).searchParams.get('sort') ?? '-created_at';
        const column = sort.replace('-', '') as 'created_at' | 'updated_at';
        const dir = sort.startsWith('-') ? 'desc' : 'asc';
        const expected = await t.database.db
          .selectFrom(table as 'shipments')
          .select('id')
          .where('account_id', '=', t.accountId)
          .orderBy(column, dir)
          .orderBy('id', dir)
          .execute();
        assert.equal(ids.length, SHIPMENTS, path);
        assert.deepEqual(
          ids,
          expected.map((r) => r.id),
          path,
        );
      }
    });
  });
}
