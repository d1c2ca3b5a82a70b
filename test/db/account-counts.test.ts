import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createAccount } from '../../src/accounts/service.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// The account counts behind the lists' meta.total (migrations/0036, 0049), kept in slots per
// database session (0060): the sums stay exact through inserts from several sessions and deletes,
// an account's deletion takes its counts with it, and two sessions inserting for the same account
// no longer wait for each other's commit.

interface Sums {
  shipments: number;
  containers: number;
  tracking_requests: number;
}

async function sums(db: TestDatabase, accountId: string): Promise<{ kept: Sums; counted: Sums }> {
  const kept = await sql<Sums>`
    select coalesce(sum(shipments), 0)::int as shipments, coalesce(sum(containers), 0)::int as containers,
      coalesce(sum(tracking_requests), 0)::int as tracking_requests
    from account_shipment_counts where account_id = ${accountId}`.execute(db.db);
  const counted = await sql<Sums>`
    select (select count(*) from shipments where account_id = ${accountId})::int as shipments,
      (select count(*) from containers where account_id = ${accountId})::int as containers,
      (select count(*) from tracking_requests where account_id = ${accountId})::int as tracking_requests`.execute(
    db.db,
  );
  return { kept: kept.rows[0]!, counted: counted.rows[0]! };
}

const insertShipment = (accountId: string) =>
  `insert into shipments (id, account_id, scac, request_type, normalized_number, bill_of_lading_number)
   values ('${randomUUID()}', '${accountId}', 'MAEU', 'bill_of_lading', 'N${randomUUID().slice(0, 8)}', 'N')`;

for (const engine of ENGINES) {
  describe(`account counts [${engine}]`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await createTestDatabase(engine);
    });
    after(() => db.destroy());

    test('the kept counts equal the rows through inserts and deletes', async () => {
      const { account } = await createAccount(db.db, 'counted');
      const { account: other } = await createAccount(db.db, 'other');
      // Concurrent inserts: on PostgreSQL they come from several pooled sessions, so several slots.
      await Promise.all(Array.from({ length: 8 }, () => seedShipment(db.db, account.id)));
      await seedShipment(db.db, other.id);
      let s = await sums(db, account.id);
      assert.deepEqual(s.kept, s.counted);
      assert.equal(s.counted.shipments, 8);
      assert.equal(s.counted.containers, 16);

      const gone = await db.db
        .selectFrom('shipments')
        .select('id')
        .where('account_id', '=', account.id)
        .limit(3)
        .execute();
      await db.db.deleteFrom('tracking_requests').where('account_id', '=', account.id).execute();
      await db.db
        .deleteFrom('shipments')
        .where(
          'id',
          'in',
          gone.map((g) => g.id),
        )
        .execute();
      s = await sums(db, account.id);
      assert.deepEqual(s.kept, s.counted);
      assert.equal(s.counted.shipments, 5);
      assert.equal(s.counted.tracking_requests, 0);
      const o = await sums(db, other.id);
      assert.deepEqual(o.kept, o.counted);

      // The account's deletion cascades to its rows, and its counts go with it.
      await db.db.deleteFrom('accounts').where('id', '=', account.id).execute();
      const left = await sql<{ n: number }>`
        select count(*)::int as n from account_shipment_counts where account_id = ${account.id}`.execute(
        db.db,
      );
      assert.equal(left.rows[0]!.n, 0);
    });

    if (engine === 'postgres') {
      test("a session inserting for an account does not wait for another's open transaction", async () => {
        const { account } = await createAccount(db.db, 'busy');
        // Two sessions of different slots (pg_backend_pid() % 16).
        const clients: pg.Client[] = [];
        const bySlot = new Map<number, pg.Client>();
        try {
          while (bySlot.size < 2) {
            const c = new pg.Client({ connectionString: db.url! });
            await c.connect();
            clients.push(c);
            const { rows } = await c.query('select pg_backend_pid() % 16 as slot');
            if (!bySlot.has(rows[0].slot)) bySlot.set(rows[0].slot, c);
          }
          const [a, b] = [...bySlot.values()];
          await a!.query('begin');
          await a!.query(insertShipment(account.id));
          // Before 0060 this waited on the account's one counts row until `a` committed.
          await b!.query('begin');
          await b!.query("set local lock_timeout = '2s'");
          await b!.query(insertShipment(account.id));
          await b!.query('commit');
          await a!.query('commit');
          const s = await sums(db, account.id);
          assert.deepEqual(s.kept, s.counted);
          assert.equal(s.counted.shipments, 2);
        } finally {
          await Promise.all(clients.map((c) => c.end().catch(() => {})));
        }
      });
    }
  });
}
