// migrations/0052 on existing data: domain events recorded the old way (no source; the POD and
// inland ETA changes only as estimated events) become a change history when the migration runs.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { createAccount } from '../../src/accounts/service.ts';
import { listChanges } from '../../src/changes/service.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createTestDatabase, ENGINES } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';

const page = { number: 1, size: 100 };

for (const engine of ENGINES) {
  test(`the migration fills the history of existing shipments [${engine}]`, async () => {
    const database = await createTestDatabase(engine);
    try {
      const { db } = database;
      const { account } = await createAccount(db, 'old');
      const s = await seedShipment(db, account.id);
      const [boxA, boxB] = s.containerIds as [string, string];
      // The database as it was before 0052, with this shipment's log as the engine wrote it then.
      await database.exec(`drop index domain_events_changes_by_shipment;
        drop index domain_events_changes_by_container;
        alter table domain_events drop column source;
        delete from schema_migrations where version = '0052_change_history.sql';`);
      await sql`delete from domain_events where shipment_id = ${s.shipmentId}`.execute(db);
      const at = (d: string) => new Date(`2024-04-${d}T00:00:00Z`);
      const estimate = async (
        event: string,
        box: string | null,
        prev: string | null,
        next: string,
        day: string,
      ) => {
        const id = randomUUID();
        await sql`insert into estimated_events (id, account_id, shipment_id, container_id, event, estimated_timestamp, previous_timestamp, created_at)
          values (${id}, ${account.id}, ${s.shipmentId}, ${box}, ${event}, ${next}, ${prev}, ${at(day)})`.execute(
          db,
        );
        await logged(event, box, 'estimated_event', id, null, day);
      };
      const logged = (
        event: string,
        box: string | null,
        type: string,
        ref: string,
        changeset: unknown,
        day: string,
      ) =>
        sql`insert into domain_events (id, account_id, event, shipment_id, container_id, reference_type, reference_id, changeset, created_at)
          values (${randomUUID()}, ${account.id}, ${event}, ${s.shipmentId}, ${box}, ${type}, ${ref},
                  ${changeset === null ? null : JSON.stringify(changeset)}::jsonb, ${at(day)})`.execute(db);
      await estimate(
        'shipment.estimated.arrival',
        null,
        '2024-04-20T08:00:00.000Z',
        '2024-04-22T08:00:00.000Z',
        '01',
      );
      await estimate(
        'container.transport.estimated.vessel_arrived',
        boxA,
        '2024-04-20T08:00:00.000Z',
        '2024-04-22T08:00:00.000Z',
        '01',
      );
      await estimate(
        'shipment.estimated.arrival',
        null,
        '2024-04-22T08:00:00.000Z',
        '2024-04-25T10:30:00.000Z',
        '03',
      );
      await estimate(
        'container.transport.estimated.arrived_at_inland_destination',
        boxB,
        null,
        '2024-04-28T00:00:00.000Z',
        '04',
      );
      await logged(
        'container.updated',
        boxA,
        'container_updated_event',
        randomUUID(),
        { current_status: ['on_ship', 'grounded'] },
        '05',
      );
      await logged(
        'container.pod_terminal_changed',
        boxA,
        'container_pod_terminal_changed_event',
        randomUUID(),
        { pod_terminal_id: [randomUUID(), randomUUID()] },
        '05',
      );
      await logged(
        'container.updated',
        boxA,
        'container_updated_event',
        randomUUID(),
        { available_for_pickup: [null, true], pickup_lfd: [null, '2024-04-30T00:00:00.000Z'] },
        '06',
      );
      await logged(
        'container.pickup_lfd.changed',
        boxA,
        'container_updated_event',
        randomUUID(),
        { pickup_lfd: [null, '2024-04-30T00:00:00.000Z'] },
        '06',
      );
      await logged(
        'tracking_request.tracking_stopped',
        null,
        'tracking_request',
        s.trackingRequestId,
        { status: ['created', 'tracking_stopped'] },
        '07',
      );

      assert.deepEqual(await migrate(database), ['0052_change_history.sql']);

      const shipment = await listChanges(db, account.id, { kind: 'shipment', id: s.shipmentId }, { page });
      const rows = shipment.data.map((c) => [
        c.attributes.attribute,
        c.attributes.before,
        c.attributes.after,
        c.attributes.source,
      ]);
      assert.deepEqual(rows, [
        ['available_for_pickup', null, true, 'terminal'],
        ['pickup_lfd', null, '2024-04-30T00:00:00.000Z', 'terminal'],
        ['current_status', 'on_ship', 'grounded', 'shipping_line'],
        ['ind_eta_at', null, '2024-04-28T00:00:00.000Z', 'shipping_line'],
        ['pod_eta_at', '2024-04-22T08:00:00.000Z', '2024-04-25T10:30:00.000Z', 'shipping_line'],
        ['pod_eta_at', '2024-04-20T08:00:00.000Z', '2024-04-22T08:00:00.000Z', 'shipping_line'],
      ]);
      assert.equal(shipment.total, 6);
      assert.equal(shipment.data[4]!.attributes.observed_at, '2024-04-03T00:00:00.000Z');
      const b = await listChanges(db, account.id, { kind: 'container', id: boxB }, { page });
      assert.deepEqual(
        b.data.map((c) => c.attributes.attribute),
        ['ind_eta_at'],
      );
      const eta = await listChanges(
        db,
        account.id,
        { kind: 'shipment', id: s.shipmentId },
        { page, attribute: 'pod_eta_at' },
      );
      assert.equal(eta.total, 2);
    } finally {
      await database.destroy();
    }
  });
}
