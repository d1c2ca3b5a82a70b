import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createAccount } from '../../src/accounts/service.ts';
import { type NewDomainEvent, recordDomainEvents } from '../../src/domain-events/record.ts';
import { renderNotification, renderNotifications } from '../../src/webhooks/notifications/render.ts';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/db.ts';
import { type SeededShipment, seedShipment } from '../helpers/seed.ts';

// Bodies are rendered a batch at a time (the delivery loop renders a whole claim at once): a
// batch must give every notification exactly the body it would get rendered on its own.

const EVENTS = [
  'tracking_request.succeeded',
  'container.transport.vessel_arrived',
  'container.transport.vessel_departed',
  'shipment.estimated.arrival',
  'container.created',
  'container.updated',
];

for (const engine of ENGINES) {
  describe(`batch rendering [${engine}]`, () => {
    let database: TestDatabase;
    const ids: string[] = [];
    const seeded: SeededShipment[] = [];

    before(async () => {
      database = await createTestDatabase(engine);
      const db = database.db;
      // Two accounts, two shipments each: a batch spans accounts, shipments and reference types.
      for (const name of ['a', 'b']) {
        const { account } = await createAccount(db, name);
        // Seeded before the webhooks exist: the engine's own domain events from tracking these
        // shipments make no notifications, so the batch holds only the ones recorded below.
        const mine = [await seedShipment(db, account.id), await seedShipment(db, account.id)];
        seeded.push(...mine);
        await db
          .insertInto('webhooks')
          .values(
            [1, 2].map((i) => ({
              id: randomUUID(),
              account_id: account.id,
              url: `https://hooks.example.com/${name}/${i}`,
              events: EVENTS,
              secret: 'whsec_test',
            })),
          )
          .execute();
        for (const sh of mine) {
          const [c1, c2] = sh.containerIds as [string, string];
          const estimatedId = randomUUID();
          await db
            .insertInto('estimated_events')
            .values({
              id: estimatedId,
              account_id: account.id,
              shipment_id: sh.shipmentId,
              container_id: null,
              event: 'shipment.estimated.arrival',
              estimated_timestamp: new Date('2024-04-01T08:00:00Z'),
              previous_timestamp: new Date('2024-03-30T08:00:00Z'),
              location_locode: 'NLRTM',
              timezone: 'Europe/Amsterdam',
              vessel_id: sh.vesselId,
              voyage_number: '012W',
            })
            .execute();
          const events: NewDomainEvent[] = [
            {
              event: 'tracking_request.succeeded',
              account_id: account.id,
              tracking_request_id: sh.trackingRequestId,
              shipment_id: sh.shipmentId,
              reference_type: 'tracking_request',
              reference_id: sh.trackingRequestId!,
            },
            // Every transport event of both containers: with and without vessel, terminal, port.
            ...[c1, c2].flatMap((c) =>
              sh.transportEventIds.get(c)!.map((te) => ({
                event: 'container.transport.vessel_arrived',
                account_id: account.id,
                shipment_id: sh.shipmentId,
                container_id: c,
                reference_type: 'transport_event',
                reference_id: te,
              })),
            ),
            {
              event: 'shipment.estimated.arrival',
              account_id: account.id,
              shipment_id: sh.shipmentId,
              reference_type: 'estimated_event',
              reference_id: estimatedId,
            },
            {
              event: 'container.created',
              account_id: account.id,
              shipment_id: sh.shipmentId,
              container_id: c1,
              reference_type: 'container_created_event',
            },
            {
              event: 'container.updated',
              account_id: account.id,
              shipment_id: sh.shipmentId,
              container_id: c2,
              reference_type: 'container_updated_event',
              changeset: { current_status: ['on_ship', 'grounded'] },
            },
          ];
          await db.transaction().execute((tx) => recordDomainEvents(tx, events));
        }
      }
      const rows = await db.selectFrom('webhook_notifications').select('id').orderBy('created_at').execute();
      ids.push(...rows.map((r) => r.id));
    });
    after(() => database.destroy());

    test('a batch renders every notification exactly as it renders alone', async () => {
      assert.ok(ids.length > 40, `${ids.length} notifications`);
      const batch = await renderNotifications(database.db, ids);
      assert.equal(batch.size, ids.length);
      for (const id of ids) assert.equal(batch.get(id), await renderNotification(database.db, id), id);
    });

    test('bodies carry the notification and the records it concerns', async () => {
      const batch = await renderNotifications(database.db, ids);
      const bodies = [...batch.values()].map((b) => JSON.parse(b));
      const byEvent = (e: string) => bodies.filter((b) => b.data.attributes.event === e);
      for (const b of bodies) {
        assert.equal(b.data.type, 'webhook_notification');
        assert.equal(batch.get(b.data.id), JSON.stringify(b), 'the body is plain JSON.stringify output');
        const ref = b.data.relationships.reference_object.data;
        assert.ok(
          b.included.some((r: { type: string; id: string }) => r.type === ref.type && r.id === ref.id),
          `${ref.type} included`,
        );
        const keys = b.included.map((r: { type: string; id: string }) => `${r.type}:${r.id}`);
        assert.equal(new Set(keys).size, keys.length, 'no record included twice');
        // Only the notification's own account's records.
        const shipment = b.included.find((r: { type: string }) => r.type === 'shipment');
        assert.ok(seeded.some((s) => s.shipmentId === shipment.id));
      }
      const arrived = byEvent('container.transport.vessel_arrived');
      const types = new Set(arrived.flatMap((b) => b.included.map((r: { type: string }) => r.type)));
      for (const t of ['transport_event', 'shipment', 'container', 'port', 'terminal', 'vessel']) {
        assert.ok(types.has(t), `${t} in some transport event body (${[...types].join()})`);
      }
      const estimate = byEvent('shipment.estimated.arrival')[0];
      assert.deepEqual(
        estimate.included.map((r: { type: string }) => r.type).filter((t: string) => t === 'vessel'),
        ['vessel'],
      );
      const updated = byEvent('container.updated')[0];
      const change = updated.included.find((r: { type: string }) => r.type === 'container_updated_event');
      assert.deepEqual(change.attributes.changeset, { current_status: ['on_ship', 'grounded'] });
    });

    test('unknown ids are left out', async () => {
      const gone = randomUUID();
      const batch = await renderNotifications(database.db, [ids[0]!, gone]);
      assert.deepEqual([...batch.keys()], [ids[0]]);
      await assert.rejects(renderNotification(database.db, gone), /not found/);
    });
  });
}
