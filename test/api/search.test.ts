import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RawBuilder, sql } from 'kysely';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { type SeededShipment, seedShipment } from '../helpers/seed.ts';

// Issue 13 (3): GET /v2/search through HTTP, on both engines (pg_trgm on each).

for (const engine of ENGINES) {
  describe(`search [${engine}]`, () => {
    let t: TestApp;
    let a: SeededShipment;
    let b: SeededShipment;
    let pendingId: string;
    before(async () => {
      t = await startTestApp(engine);
      a = await seedShipment(t.database.db, t.accountId, {
        number: 'MEDUSRCH0001',
        scac: 'MSCU',
        containers: ['MSCU1234566', 'TGHU1234563'],
        refNumbers: ['PO-Alpha-77'],
        tags: ['Frozen'],
      });
      b = await seedShipment(t.database.db, t.accountId, { number: 'MEDUSRCH00012' });
      const tr = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'booking_number',
          request_number: 'SRCHBOOK99',
          scac: 'MSCU',
          ref_numbers: ['PO-Alpha-88'],
        }),
      });
      assert.equal(tr.status, 201, tr.text);
      pendingId = tr.body.data.id;
    });
    after(() => t.close());

    const find = async (q: string, key?: string) => {
      const res = await t.request('GET', `/v2/search?query=${encodeURIComponent(q)}`, key ? { key } : {});
      assert.equal(res.status, 200, res.text);
      // Every hit a search_result as the live service answers (issue 28); entity_type says what.
      for (const h of res.body.data) assert.equal(h.type, 'search_result');
      assert.match(res.body.links.self, /\/v2\/search\?query=/);
      assert.match(res.body.links.current, /\/v2\/search\?page%5Bnumber%5D=1&query=/);
      return (res.body.data as any[]).map((h) => ({ ...h, type: h.attributes.entity_type }));
    };

    test('a B/L finds its shipment first (exact before partial), not the request that created it', async () => {
      const hits = await find('medusrch0001');
      assert.deepEqual(
        hits.map((h) => [h.type, h.id]),
        [
          ['shipment', a.shipmentId],
          ['shipment', b.shipmentId],
        ],
      );
      const s = hits[0].attributes;
      assert.equal(s.entity_type, 'shipment');
      assert.equal(s.number, 'MEDUSRCH0001');
      assert.equal(s.containers_count, 2);
      assert.equal(s.tracking_stopped, false);
      assert.deepEqual(s.ref_numbers, ['PO-Alpha-77']);
      assert.equal(s.shipment_id, null);
    });

    test('containers are cargo with their shipment; prefix and partial matching', async () => {
      const hits = await find('mscu12345');
      assert.equal(hits[0].type, 'cargo');
      assert.equal(hits[0].attributes.number, 'MSCU1234566');
      assert.equal(hits[0].attributes.shipment_id, a.shipmentId);
      assert.equal(hits[0].attributes.scac, 'MSCU');
      const partial = await find('1234563');
      assert.deepEqual(
        partial.map((h) => h.attributes.number),
        ['TGHU1234563'],
      );
      // The index is asked for the digits only; the whole term still has to match (both boxes
      // share the digits 123456).
      assert.deepEqual(
        (await find('ghu123456')).map((h) => h.attributes.number),
        ['TGHU1234563'],
      );
      assert.deepEqual(await find('XGHU123456'), []);
      // Shorter than a trigram: whole numbers only (a partial match would scan the account).
      assert.deepEqual(await find('cu'), []);
      assert.equal((await find('scu')).length > 0, true);
    });

    test('reference numbers, tags, custom field values; shipments before requests', async () => {
      const refs = await find('po-alpha');
      assert.deepEqual(
        refs.map((h) => [h.type, h.id]),
        [
          ['shipment', a.shipmentId],
          ['tracking_request', pendingId],
        ],
      );
      assert.equal(refs[1].attributes.status, 'pending');
      assert.deepEqual(
        (await find('FROZ')).map((h) => h.id),
        [a.shipmentId],
      );
      const def = await t.request('POST', '/v2/custom_field_definitions', {
        body: {
          data: {
            attributes: {
              entity_type: 'Container',
              api_slug: 'po',
              display_name: 'PO',
              data_type: 'short_text',
            },
          },
        },
      });
      assert.equal(def.status, 201);
      await t.request('POST', `/v2/containers/${b.containerIds[0]}/custom_fields`, {
        body: { data: { attributes: { api_slug: 'po', value: 'Widget-Order-5' } } },
      });
      assert.deepEqual(
        (await find('widget-order')).map((h) => [h.type, h.id]),
        [['cargo', b.containerIds[0]]],
      );
      assert.deepEqual(await find('100%_'), []);
    });

    test("only the caller's account; a missing or blank query is a 400; at most 25", async () => {
      const other = await t.newAccount();
      assert.deepEqual(await find('MEDUSRCH', other.key), []);
      for (const qs of ['', '?query=', '?query=%20%20', `?query=${'x'.repeat(201)}`]) {
        const res = await t.request('GET', `/v2/search${qs}`);
        assert.equal(res.status, 400, qs);
        assert.equal(res.body.errors[0].source.parameter, 'query');
      }
      for (let i = 0; i < 27; i++) {
        await seedShipment(t.database.db, t.accountId, { number: `MANYHIT${i}`, containers: [] });
      }
      assert.equal((await find('manyhit')).length, 25);
    });

    test('the trigram indexes serve partial matches on this engine (pg_trgm, migrations/0033, 0042)', async () => {
      // A few rows make a sequential scan cheapest; forbidding it shows whether the index can serve
      // (no account condition, so the account b-trees are no alternative). The covering b-tree of
      // the hot reads (migrations/0035) holds every number, so on a handful of rows a full scan of it
      // is cheaper still: it is dropped inside the transaction, which is always rolled back.
      const rollback = new Error('rollback');
      const plan = async (query: RawBuilder<unknown>) => {
        let out = '';
        await t.database.db
          .transaction()
          .execute(async (tx) => {
            await sql`set local enable_seqscan = off`.execute(tx);
            await sql`drop index containers_by_shipment`.execute(tx);
            const r = await sql<Record<string, string>>`explain ${query}`.execute(tx);
            out = r.rows.map((row) => Object.values(row)[0]).join('\n');
            throw rollback;
          })
          .catch((err) => {
            if (err !== rollback) throw err;
          });
        return out;
      };
      assert.match(
        await plan(sql`select id from containers where number ilike '%234%'`),
        /containers_search_number/,
      );
      assert.match(
        await plan(sql`select id from shipments where search_text(ref_numbers) ilike '%alpha%'`),
        /shipments_search_refs/,
      );
      assert.match(
        await plan(sql`select entity_id from custom_field_values where entity_type = 'container'
                        and (value #>> '{}') ilike '%order%'`),
        /custom_field_values_search_container/,
      );
    });
  });
}
