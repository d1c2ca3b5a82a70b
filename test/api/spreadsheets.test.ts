import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { containerNumber, seedShipment } from '../helpers/seed.ts';

// Spreadsheets in and out: POST /v2/tracking_requests/import (text/csv, one result per row) and
// `Accept: text/csv` on the lists (every page, the filters in force), for two accounts.

const csvOf = (rows: string[][]) => `${rows.map((r) => r.join(',')).join('\n')}\n`;

for (const engine of ENGINES) {
  describe(`spreadsheets [${engine}]`, () => {
    let t: TestApp;
    let other: { accountId: string; key: string };
    before(async () => {
      t = await startTestApp(engine, {
        RATE_LIMIT_CREATE_PER_MINUTE: '1000',
        RATE_LIMIT_DEFAULT_PER_MINUTE: '1000',
        IMPORT_MAX_ROWS: '1000',
      });
      other = await t.newAccount('other');
    });
    after(() => t.close());

    const post = (text: string, key?: string) =>
      t.request('POST', '/v2/tracking_requests/import', {
        rawBody: text,
        headers: { 'content-type': 'text/csv' },
        key,
      });

    test('1,000 rows with 20 bad ones spread through the file: each reported with its line, none blocking', async () => {
      // A tracking request made before the import: a row repeating it is a duplicate.
      const existing = await t.request('POST', '/v2/tracking_requests', {
        body: {
          data: {
            type: 'tracking_request',
            attributes: { request_type: 'bill_of_lading', request_number: 'MAEU900001', scac: 'MAEU' },
          },
        },
      });
      assert.equal(existing.status, 201, existing.text.slice(0, 300));
      const long = 'R'.repeat(201);
      // Each kind of bad row twice: [cells, code, pointer]. The pointer names the attribute the
      // row's create body got the cell as, so a user finds the cell to fix.
      const kinds: Array<[string[], string, string]> = [
        [['MSCU1234567', '', 'container', '', ''], 'invalid_number', '/data/attributes/request_number'],
        [['BOLZZ1', 'ZZZZ', 'bill_of_lading', '', ''], 'unknown_scac', '/data/attributes/scac'],
        [['BOLBK1', 'MAEU', 'booking', '', ''], 'invalid_value', '/data/attributes/request_type'],
        [['', 'MAEU', 'bill_of_lading', '', ''], 'blank', '/data/attributes/request_number'],
        [['MAEU900001', 'MAEU', 'bill_of_lading', '', ''], 'duplicate', '/data/attributes/request_number'],
        [['MAEU100001', 'MAEU', 'bill_of_lading', '', ''], 'duplicate', '/data/attributes/request_number'],
        [
          ['MAEULONGREF', 'MAEU', 'bill_of_lading', `PO-1;${long}`, ''],
          'too_long',
          '/data/attributes/ref_numbers/1',
        ],
        [['MAEULONGTAG', 'MAEU', 'bill_of_lading', '', long], 'too_long', '/data/attributes/shipment_tags/0'],
        [
          [`MAEU${'9'.repeat(100)}`, 'MAEU', 'bill_of_lading', '', ''],
          'too_long',
          '/data/attributes/request_number',
        ],
        [['MAEUSCAC1', 'MAEUMAEUMAEU', 'bill_of_lading', '', ''], 'too_long', '/data/attributes/scac'],
      ];
      const rows: string[][] = [['request_number', 'scac', 'request_type', 'ref_numbers', 'tags']];
      const bad = new Map<number, [string, string]>(); // line -> [code, pointer]
      for (let i = 0; i < 1000; i++) {
        const line = i + 2;
        // Lines 37, 87, ... 987: spread from the start to the end of the file, never adjacent.
        if (i % 50 === 35) {
          const k = (i - 35) / 50;
          const [cells, code, pointer] = kinds[k % kinds.length]!;
          // The second of each kind gets a number of its own, so it is not a duplicate of the first.
          const own =
            k >= kinds.length && code !== 'duplicate' && cells[0] !== '' && !cells[0]!.startsWith('MSCU');
          rows.push(own ? [`${cells[0]}X`, ...cells.slice(1)] : cells);
          bad.set(line, [code, pointer]);
        } else if (i % 3 === 0) {
          // No type and no carrier: a container number, its carrier left to detection.
          rows.push([containerNumber('MSCU'), '', '', '', '']);
        } else {
          rows.push([`MAEU${String(100000 + i)}`, 'MAEU', 'bill_of_lading', `PO-${i};INV-${i}`, 'import']);
        }
      }
      assert.equal(bad.size, 20);
      const started = performance.now();
      const res = await post(csvOf(rows));
      const ms = performance.now() - started;
      assert.equal(res.status, 200, res.text.slice(0, 500));
      assert.deepEqual(
        { rows: res.body.meta.rows, created: res.body.meta.created, failed: res.body.meta.failed },
        { rows: 1000, created: 980, failed: 20 },
      );
      assert.equal(res.body.data.length, 980);
      const results = res.body.meta.results as Array<{
        line: number;
        status: string;
        id?: string;
        errors?: any[];
      }>;
      assert.deepEqual(
        results.map((r) => r.line),
        rows.slice(1).map((_, i) => i + 2),
        'one result per row, in the file order, numbered as a spreadsheet numbers lines',
      );
      const ids = new Set(res.body.data.map((d: any) => d.id));
      for (const r of results) {
        const expected = bad.get(r.line);
        if (expected === undefined) {
          assert.equal(r.status, 'created', `line ${r.line}: ${JSON.stringify(r.errors)}`);
          assert.ok(ids.has(r.id), `line ${r.line}: its tracking request is in data`);
          assert.equal(r.errors, undefined);
        } else {
          assert.equal(r.status, 'failed', `line ${r.line}`);
          assert.equal(r.id, undefined);
          assert.equal(r.errors!.length, 1, `line ${r.line}: ${JSON.stringify(r.errors)}`);
          const [e] = r.errors!;
          assert.deepEqual([e.code, e.source.pointer], expected, `line ${r.line}: ${JSON.stringify(e)}`);
          // JSON:API error objects, as POST /v2/tracking_requests answers them (status a string).
          assert.equal(e.status, '422', `line ${r.line}: ${JSON.stringify(e)}`);
          assert.equal(typeof e.title, 'string');
          assert.equal(typeof e.detail, 'string');
        }
      }
      const booking = results.find((r) => bad.get(r.line)?.[1] === '/data/attributes/request_type')!;
      assert.match(booking.errors![0].detail, /bill_of_lading/);
      const created = res.body.data.find((d: any) => d.attributes.request_number === 'MAEU100001');
      assert.deepEqual(created.attributes.ref_numbers, ['PO-1', 'INV-1']);
      assert.deepEqual(created.attributes.shipment_tags, ['import']);
      const detected = res.body.data.find((d: any) => d.attributes.request_type === 'container');
      assert.ok(detected, 'a number without request_type that passes ISO 6346 is a container');
      // What the import answered is what the API holds: 980 made by it, plus the one before.
      const listed = await t.request('GET', '/v2/tracking_requests?page[size]=1', {
        headers: { 'cache-control': 'no-cache' },
      });
      assert.equal(listed.body.meta.total, 981);
      // Kept fast: the rows are created eight at a time through the batched insert.
      assert.ok(ms < 30_000, `1,000 rows took ${ms.toFixed(0)} ms`);

      // The other account sees none of them, and may import the same numbers.
      const theirs = await t.request('GET', '/v2/tracking_requests', { key: other.key });
      assert.equal(theirs.body.meta.total, 0);
      const mine = await post(
        csvOf([
          ['request_number', 'scac'],
          ['MAEU100001', 'MAEU'],
        ]),
        other.key,
      );
      assert.equal(mine.body.meta.created, 1);
    });

    test('an unreadable file, an unknown column, no request_number column, too many rows, JSON', async () => {
      const cases: Array<[string, number, string]> = [
        ['request_number,scac\n"MAEU1,MAEU\n', 400, 'malformed_csv'],
        ['request_number,carrier\nMAEU1,MAEU\n', 400, 'malformed_csv'],
        ['scac\nMAEU\n', 400, 'malformed_csv'],
        [`request_number\n${'X1\n'.repeat(1001)}`, 413, 'too_many_rows'],
      ];
      for (const [text, status, code] of cases) {
        const res = await post(text);
        assert.equal(res.status, status, text.slice(0, 40));
        assert.equal(res.body.errors[0].code, code);
      }
      const json = await t.request('POST', '/v2/tracking_requests/import', { body: { data: {} } });
      assert.equal(json.status, 415);
    });

    test('Accept: text/csv exports every page of a list with its filters, columns from the schema', async () => {
      const before = await t.request('GET', '/v2/shipments'); // fills the response cache with JSON
      assert.equal(before.status, 200);
      const seeded: Awaited<ReturnType<typeof seedShipment>>[] = [];
      for (let i = 0; i < 7; i++)
        seeded.push(
          await seedShipment(t.database.db, t.accountId, { tags: i < 3 ? ['=HYPERLINK("x")'] : [] }),
        );
      await seedShipment(t.database.db, other.accountId);
      const res = await fetch(`${t.url}/v2/shipments?page[size]=2`, {
        headers: { authorization: `Token ${t.key}`, accept: 'text/csv' },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/csv/);
      assert.match(res.headers.get('content-disposition')!, /shipments\.csv/);
      const records = parse(await res.text(), { columns: true }) as Array<Record<string, string>>;
      assert.equal(records.length, 7, 'page[size] does not cut an export; the other account is not in it');
      assert.deepEqual(new Set(records.map((r) => r.id)), new Set(seeded.map((s) => s.shipmentId)));
      const json = await t.request('GET', `/v2/shipments/${seeded[0]!.shipmentId}`);
      const header = Object.keys(records[0]!);
      assert.deepEqual(header.slice(0, 1 + Object.keys(json.body.data.attributes).length), [
        'id',
        ...Object.keys(json.body.data.attributes),
      ]);
      assert.ok(header.includes('containers_ids'));
      const row = records.find((r) => r.id === seeded[0]!.shipmentId)!;
      assert.equal(row.bill_of_lading_number, json.body.data.attributes.bill_of_lading_number);
      assert.deepEqual(row.containers_ids!.split('; ').sort(), seeded[0]!.containerIds.slice().sort());
      const tagged = records.filter((r) => r.tags !== '');
      assert.equal(tagged.length, 3);
      for (const r of tagged) assert.equal(r.tags, '\'=HYPERLINK("x")', 'a formula is never a formula');

      // Filters in force: one shipment by number; containers of one shipment; tracking requests.
      const one = await fetch(`${t.url}/v2/shipments?number=${seeded[1]!.number}`, {
        headers: { authorization: `Token ${t.key}`, accept: 'text/csv' },
      });
      assert.equal((parse(await one.text(), { columns: true }) as unknown[]).length, 1);
      const boxes = await fetch(`${t.url}/v2/containers?filter[shipment_id]=${seeded[2]!.shipmentId}`, {
        headers: { authorization: `Token ${t.key}`, accept: 'text/csv' },
      });
      const boxRows = parse(await boxes.text(), { columns: true }) as Array<Record<string, string>>;
      assert.deepEqual(boxRows.map((r) => r.id).sort(), seeded[2]!.containerIds.slice().sort());
      assert.equal(boxRows[0]!.shipment_id, seeded[2]!.shipmentId);
      const trs = await fetch(`${t.url}/v2/tracking_requests?filter[scac]=HLCU`, {
        headers: { authorization: `Token ${t.key}`, accept: 'text/csv' },
      });
      const trRows = parse(await trs.text(), { columns: true }) as Array<Record<string, string>>;
      assert.equal(trRows.length, 7);
      assert.ok(trRows.every((r) => r.scac === 'HLCU' && r.request_type === 'bill_of_lading'));

      // JSON still answers JSON afterwards (the export was not cached in its place).
      const after = await t.request('GET', '/v2/shipments');
      assert.equal(after.body.meta.total, 7);
    });
  });
}
