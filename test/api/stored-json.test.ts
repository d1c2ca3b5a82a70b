import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../src/accounts/service.ts';
import { columnsRead, renderFunction } from '../../src/members/stored.ts';
import { expandMarkers } from '../../src/reference/markers.ts';
import { STORED_TABLES } from '../../src/shipments/sql-bodies/resources.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

// The stored JSON pieces (src/members/stored.ts, made of the resources' declarations;
// migrations/0043): the database's trigger functions and their column lists are the ones the
// declarations make (a change there needs a migration: `npm run migration:stored-json`), bookkeeping updates render nothing, and text from
// users or carriers can never pose as a reference marker. test/api/sql-bodies.test.ts compares
// the documents built from them with the serializers'.

for (const engine of ENGINES) {
  describe(`stored JSON pieces [${engine}]`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await createTestDatabase(engine);
    });
    after(async () => {
      await t.destroy();
    });

    test("the database's trigger functions and columns are stored.ts's", async () => {
      for (const table of STORED_TABLES) {
        const fn = await sql<{
          prosrc: string;
        }>`select prosrc from pg_proc where proname = ${table.fn}`.execute(t.db);
        const body = /\$\$([\s\S]*)\$\$/.exec(renderFunction(table))![1];
        assert.equal(
          fn.rows[0]?.prosrc,
          body,
          `${table.fn}: write the migration with npm run migration:stored-json`,
        );
        const cols = await sql<{ name: string }>`select a.attname as name from pg_trigger g
          join pg_attribute a on a.attrelid = g.tgrelid and a.attnum = any(g.tgattr::int2[])
          where g.tgname = ${`${table.table}_render_json`} order by a.attname`.execute(t.db);
        assert.deepEqual(
          cols.rows.map((r) => r.name),
          columnsRead(table),
          `${table.table}: the trigger fires on the columns its pieces read`,
        );
      }
    });

    test('an update of bookkeeping columns renders nothing; one of a served column renders', async () => {
      const { shipmentId } = await seedShipment(t.db, (await account(t)).id);
      const piece = async () =>
        (
          await sql<{
            p: string;
          }>`select attributes_json_2 as p from shipments where id = ${shipmentId}`.execute(t.db)
        ).rows[0]!.p;
      await sql`update shipments set attributes_json_2 = '"sentinel":1' where id = ${shipmentId}`.execute(
        t.db,
      );
      await sql`update shipments set next_refresh_at = now(), line_tracking_last_attempted_at = now()
        where id = ${shipmentId}`.execute(t.db);
      assert.equal(await piece(), '"sentinel":1');
      await sql`update shipments set pod_eta_at = '2030-01-02T03:04:05.678Z' where id = ${shipmentId}`.execute(
        t.db,
      );
      assert.match(await piece(), /"pod_eta_at":"2030-01-02T03:04:05\.678Z"/);
    });

    test("a container's stored event ids, event count and empty-return zone follow its events, and nothing else", async () => {
      const seeded = await seedShipment(t.db, (await account(t)).id);
      const box = seeded.containerIds[0]!;
      const state = async () =>
        (
          await sql<{
            ids: string | null;
            n: number;
            v: string;
          }>`select transport_event_ids_json as ids, transport_event_count as n, xmin::text as v
            from containers where id = ${box}`.execute(t.db)
        ).rows[0]!;
      const listed = (ids: string | null) =>
        (JSON.parse(ids ?? '[]') as Array<{ id: string }>).map((e) => e.id);
      const events = seeded.transportEventIds.get(box)!;
      assert.deepEqual(listed((await state()).ids), events);
      assert.equal((await state()).n, events.length);
      // An invalidation orders nothing: the container row is not written.
      const before = await state();
      await sql`update transport_events set invalidated_at = now() where id = ${events[0]!}`.execute(t.db);
      assert.equal((await state()).v, before.v);
      // The first event moved last, then deleted: the array follows.
      await sql`update transport_events set "timestamp" = '2099-01-01T00:00:00Z' where id = ${events[0]!}`.execute(
        t.db,
      );
      assert.deepEqual(listed((await state()).ids), [...events.slice(1), events[0]!]);
      // The zone of the last empty return follows its event (the moved one is now the latest).
      await sql`update transport_events set event = 'container.transport.empty_in', timezone = 'Europe/Oslo'
        where id = ${events[0]!}`.execute(t.db);
      const zone = async () =>
        (
          await sql<{
            z: string | null;
          }>`select empty_in_timezone as z from containers where id = ${box}`.execute(t.db)
        ).rows[0]!.z;
      assert.equal(await zone(), 'Europe/Oslo');
      await sql`delete from transport_events where container_id = ${box}`.execute(t.db);
      assert.equal(await zone(), null);
      assert.deepEqual(listed((await state()).ids), []);
      assert.equal((await state()).n, 0);
    });

    test("a container's stored event list (migrations/0048) is its events' JSON in history order, and follows them", async () => {
      const seeded = await seedShipment(t.db, (await account(t)).id);
      const box = seeded.containerIds[0]!;
      const stored = async () =>
        (
          await sql<{
            events_json: string;
            locodes_json: string;
            vessel_ids: string[];
          }>`select events_json, locodes_json, vessel_ids from container_event_lists where container_id = ${box}`.execute(
            t.db,
          )
        ).rows[0];
      const fromEvents = async () => {
        const rows = (
          await sql<{
            resource_json: string;
            location_locode: string | null;
            vessel_id: string | null;
          }>`select resource_json, location_locode, vessel_id from transport_events where container_id = ${box}
            order by "timestamp" nulls last, key`.execute(t.db)
        ).rows;
        return {
          events_json: rows.map((r) => r.resource_json).join(','),
          locodes_json: JSON.stringify(rows.map((r) => r.location_locode)),
          vessel_ids: rows.map((r) => r.vessel_id),
        };
      };
      const events = seeded.transportEventIds.get(box)!;
      assert.ok(events.length > 1);
      assert.deepEqual(await stored(), await fromEvents());
      const containerVersion = async () =>
        (await sql<{ v: string }>`select xmin::text as v from containers where id = ${box}`.execute(t.db))
          .rows[0]!.v;
      // An invalidation changes the list (the event's JSON), and writes no container row.
      const before = await containerVersion();
      await sql`update transport_events set invalidated_at = now() where id = ${events[0]!}`.execute(t.db);
      assert.match((await stored())!.events_json, /"invalidated_at":"\d{4}-/);
      assert.deepEqual(await stored(), await fromEvents());
      assert.equal(await containerVersion(), before);
      // Moved last, placed elsewhere, then all deleted: the list follows, then is gone.
      await sql`update transport_events set "timestamp" = '2099-01-01T00:00:00Z', location_locode = 'NLRTM'
        where id = ${events[0]!}`.execute(t.db);
      assert.deepEqual(await stored(), await fromEvents());
      assert.equal(JSON.parse((await stored())!.locodes_json).at(-1), 'NLRTM');
      await sql`delete from transport_events where id = ${events[1]!}`.execute(t.db);
      assert.deepEqual(await stored(), await fromEvents());
      await sql`delete from transport_events where container_id = ${box}`.execute(t.db);
      assert.equal(await stored(), undefined);
    });

    test('text holding the marker character stays text', async () => {
      const { shipmentId } = await seedShipment(t.db, (await account(t)).id);
      const forged = `"\u0001pn:USLAX"`;
      await sql`update shipments set customer_name = ${forged} where id = ${shipmentId}`.execute(t.db);
      const r = await sql<{
        p: string;
      }>`select attributes_json_1 as p from shipments where id = ${shipmentId}`.execute(t.db);
      const doc = JSON.parse(expandMarkers(`{${r.rows[0]!.p}}`)) as Record<string, unknown>;
      assert.equal(doc.customer_name, forged);
      // Real markers in the same piece were filled in (the seeded ports are known).
      assert.equal(typeof doc.port_of_lading_name, 'string');
    });
  });
}

async function account(t: TestDatabase): Promise<{ id: string }> {
  return (await createAccount(t.db, 'stored-json')).account;
}
