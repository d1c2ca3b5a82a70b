import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../src/accounts/service.ts';
import { openPostgres } from '../../src/db/database.ts';
import { NAMED_STATEMENTS_MAX } from '../../src/db/statement-names.ts';
import { claimDueRequests } from '../../src/engine/claims.ts';
import { containerPage, shipmentPage } from '../../src/shipments/sql-bodies/queries.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// Statement texts stay few and prepared statements bounded (src/db/list-parameters.ts,
// src/db/statement-names.ts): an `in` list is one array parameter whatever its length, only the
// hot statements are named, and at most NAMED_STATEMENTS_MAX of them.

/** Prepared statements of the session (one connection: the pool of size 1, or PGlite's one). */
async function preparedCount(t: Pick<TestDatabase, 'db'>): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(t.db);
  return r.rows[0]!.n;
}

for (const engine of ENGINES) {
  describe(`statements [${engine}]`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await createTestDatabase(engine, { poolSize: 1 });
    });
    after(() => t.destroy());

    test('an `in` list is one array parameter: same text for every length, same rows', async () => {
      const { account } = await createAccount(t.db, 'lists');
      const seeded = await Promise.all([1, 2, 3].map(() => seedShipment(t.db, account.id)));
      const ids = seeded.map((s) => s.shipmentId);
      const texts = new Set<string>();
      for (let n = 0; n <= 40; n++) {
        const wanted = [...ids, ...Array.from({ length: n }, () => randomUUID())].slice(0, Math.max(1, n));
        const q = t.db
          .selectFrom('shipments')
          .select('id')
          .where('id', 'in', wanted)
          .where('request_type', 'in', ['bill_of_lading', 'booking_number'])
          .where('normalized_number', 'not in', ['nothing "quoted", \\ here', 'x']);
        texts.add(q.compile().sql);
        const rows = await q.execute();
        assert.deepEqual(rows.map((r) => r.id).sort(), ids.filter((id) => wanted.includes(id)).sort());
      }
      assert.equal(texts.size, 1);
      assert.match([...texts][0]!, /"id" = any\(\$1\) and "request_type" = any\(\$2\)/);
      assert.match([...texts][0]!, /"normalized_number" <> all\(\$3\)/);
      // A list that is a subquery stays one.
      const sub = t.db
        .selectFrom('shipments')
        .select('id')
        .where('id', 'in', t.db.selectFrom('shipments').select('id'));
      assert.match(sub.compile().sql, / in \(select /);
      assert.equal((await sub.execute()).length, 3);
    });

    test(`only hot statements are named, at most ${NAMED_STATEMENTS_MAX} per session`, async () => {
      const accountId = randomUUID();
      const before = await preparedCount(t);
      for (let n = 0; n < 30; n++) {
        await t.db
          .selectFrom('shipments')
          .select('id')
          .where('id', 'in', Array(n + 1).fill(accountId))
          .execute();
      }
      assert.equal(await preparedCount(t), before, 'builder queries are not prepared');
      // Every page size of both lists, each sort: over 400 variants of the hot statements.
      for (const size of Array.from({ length: 100 }, (_, i) => i + 1)) {
        for (const desc of [true, false]) {
          const sort = { column: 'created_at', desc } as const;
          await t.queryRows(shipmentPage(sort, size % 2 === 0, size), [accountId, 0]);
          await t.queryRows(containerPage(sort, size), [accountId, 0]);
        }
      }
      const n = await preparedCount(t);
      assert.ok(n > before && n <= NAMED_STATEMENTS_MAX, `${n} prepared statements`);
    });

    test('a session that lost its prepared statements prepares them again', {
      skip: engine === 'postgres' && 'PGlite only (node-postgres keeps its own list of prepared names)',
    }, async () => {
      // A socket client's DISCARD ALL drops the session's statements (src/db/database.ts,
      // executePrepared); the next read prepares its statement again, and its rows keep their types.
      const { account } = await createAccount(t.db, 'discard');
      const { shipmentId } = await seedShipment(t.db, account.id);
      const page = shipmentPage({ column: 'created_at', desc: true }, false, 7);
      const before = await t.queryRows(page, [account.id, 0]);
      assert.equal(before.length, 1);
      assert.equal(before[0]![0], 1, 'the count comes back as a number');
      assert.equal(before[0]![1], shipmentId);
      await sql`discard all`.execute(t.db);
      assert.deepEqual(await t.queryRows(page, [account.id, 0]), before);
      await assert.rejects(t.queryRows(page, ['not a uuid', 0]), { code: '22P02' });
      assert.deepEqual(
        await t.queryRows(page, [account.id, 0]),
        before,
        'the session is usable after an error',
      );
    });

    test("the worker's claims are named", { skip: engine === 'pglite' && 'PostgreSQL only' }, async () => {
      // A process of its own: the test above gave all the names this one allows.
      const fresh = await openPostgres(t.url!, 1, { listenUrl: null });
      try {
        await claimDueRequests(fresh.db, 'statements-test', 5, 1000);
        const r = await sql<{ name: string }>`select name from pg_prepared_statements`.execute(fresh.db);
        assert.deepEqual(
          r.rows.map((row) => row.name.replace(/_[0-9a-f]{12}$/, '')),
          ['claim_due_requests'],
        );
      } finally {
        await fresh.close();
      }
    });

    test('DATABASE_PREPARED_STATEMENTS=off: none named', {
      skip: engine === 'pglite' && 'PostgreSQL only',
    }, async () => {
      const off = await openPostgres(t.url!, 1, { preparedStatements: 'off', listenUrl: null });
      try {
        const sort = { column: 'updated_at', desc: true } as const;
        for (const size of [1, 2, 3]) await off.queryRows(shipmentPage(sort, false, size), [randomUUID(), 0]);
        assert.equal(await preparedCount(off), 0);
      } finally {
        await off.close();
      }
    });
  });
}
