// Issue 12, "done means": the ocean scenario families of the carrier simulator (direct, transshipment,
// barge/feeder, rail) followed end to end: the simulator as its own process behind one DCSA
// CARRIERS_CONFIG entry, the real engine and API, and a real webhook receiver. The simulated clock
// is advanced to several points of each journey; at each the stored records are read through the
// API (port roles, current_status, pod_ata_at, pod_terminal, event names) and the delivered
// webhooks checked. Day numbers are days after the simulator's epoch (journeys are deterministic
// per number, see sim/journeys.ts).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RIGS, short, type Tracked, useScenarioRig } from '../helpers/scenario-rig.ts';

const T = 'container.transport.';

async function podTerminalOf(s: Tracked): Promise<{ id: string; code: string } | null> {
  const doc = await s.shipment();
  const ref = doc.data.relationships.pod_terminal.data;
  if (!ref) return null;
  const terminal = doc.included.find((r: any) => r.type === 'terminal' && r.id === ref.id);
  return { id: ref.id, code: terminal?.attributes.smdg_code ?? terminal?.attributes.firms_code };
}

for (const [engine, adapter] of RIGS) {
  describe(`ocean scenarios end to end through the simulator process [${engine}, ${adapter}]`, () => {
    const rig = useScenarioRig(engine, { adapter });

    test("direct (SIMBL1C, tracked by container): the carrier's B/L, an on-board call that is no transshipment, arrival, empty return", async () => {
      const s = await rig.track('SIMU1000007', 'container');
      await s.until(['created']);
      let doc = await s.shipment();
      let a = doc.data.attributes;
      assert.equal(a.port_of_lading_locode, 'CNNBO');
      assert.equal(a.port_of_discharge_locode, 'DEHAM');
      assert.deepEqual(a.transshipment_locodes, []);
      assert.equal(a.pod_ata_at, null);
      assert.equal(a.bill_of_lading_number, 'SIMBL1CU100000', "the carrier's B/L, not the container");
      assert.equal(a.normalized_number, 'SIMU1000007');
      const terminal = await podTerminalOf(s);
      assert.equal(terminal?.code, 'CTA');
      assert.deepEqual(await s.deliveredAll(['tracking_request.succeeded']), ['tracking_request.succeeded']);

      await rig.advanceTo(10);
      await s.refresh();
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      let names = short(await s.events(c.id));
      assert.ok(names.includes('vessel_departed'), names.join(' '));
      await s.deliveredAll([`${T}vessel_loaded`, `${T}vessel_departed`]);

      await rig.advanceTo(34);
      await s.refresh();
      doc = await s.shipment();
      a = doc.data.attributes;
      assert.ok(a.pod_ata_at, 'arrived at the POD');
      assert.equal((await podTerminalOf(s))?.id, terminal?.id, 'the POD terminal never changed');
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      assert.ok(c.attributes.pod_arrived_at && c.attributes.pod_discharged_at);
      const evs = await s.events(c.id);
      names = short(evs);
      assert.ok(!names.some((n) => n.includes('transshipment')), 'MYTPP is an on-board call');
      assert.deepEqual(
        evs
          .filter((e: any) => e.attributes.event === `${T}vessel_arrived`)
          .map((e: any) => e.attributes.location_locode),
        ['DEHAM'],
      );
      await s.deliveredAll([`${T}vessel_arrived`, `${T}vessel_discharged`]);

      await rig.advanceTo(40);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'empty_returned');
      const all = await s.deliveredAll([`${T}full_out`, `${T}empty_in`, 'tracking_request.tracking_stopped']);
      assert.equal(all[0], 'tracking_request.succeeded');
      assert.ok(all.indexOf(`${T}vessel_loaded`) < all.indexOf(`${T}vessel_arrived`));
      // Events read in one refresh may be delivered in any order; across readings they are not.
      assert.ok(all.indexOf(`${T}vessel_discharged`) < all.indexOf(`${T}full_out`));
      assert.ok(!all.some((n) => n.includes('transshipment')), all.join(', '));
      assert.equal(
        (await s.shipment()).data.attributes.line_tracking_stopped_reason,
        'all_containers_terminated',
      );
    });

    test('transshipment (SIMTS): on_ship at SGSIN, transshipment_* events, POD arrival only at NLRTM', async () => {
      const s = await rig.track('SIMTS0001', 'bill_of_lading');
      await rig.advanceTo(5);
      await s.until(['created']);
      await s.refresh();
      let a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_lading_locode, 'CNSGH');
      assert.equal(a.port_of_discharge_locode, 'NLRTM');
      assert.deepEqual(a.transshipment_locodes, ['SGSIN']);
      assert.ok(a.pol_atd_at);
      const terminal = await podTerminalOf(s);
      assert.equal(terminal?.code, 'RWG');

      // At the transshipment port: discharged from the first vessel, waiting for the second.
      await rig.advanceTo(10.5);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.equal(a.pod_ata_at, null);
      assert.equal(a.port_of_discharge_locode, 'NLRTM');
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      assert.equal(c.attributes.pod_arrived_at, null);
      let evs = await s.events(c.id);
      for (const e of evs.filter((x: any) => x.attributes.event.includes('transshipment_')))
        assert.equal(e.attributes.location_locode, 'SGSIN');
      assert.ok(!short(evs).includes('vessel_arrived'));
      assert.equal((await podTerminalOf(s))?.id, terminal?.id);
      await s.deliveredAll([`${T}transshipment_arrived`, `${T}transshipment_discharged`]);
      assert.ok(!s.delivered().includes(`${T}vessel_arrived`));

      await rig.advanceTo(13);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      assert.equal((await podTerminalOf(s))?.id, terminal?.id, 'not blanked by the departure');
      await s.deliveredAll([`${T}transshipment_loaded`, `${T}transshipment_departed`]);
      // The same answer in another order, every event twice: nothing is written or announced.
      const sid = await s.shipmentId();
      const snapshot = async () => ({
        updated: (await s.shipment()).data.attributes.updated_at,
        events: (await s.events(c.id)).map((e: any) => [e.id, e.attributes.event, e.attributes.timestamp]),
        announced: (
          await rig.t.database.db
            .selectFrom('domain_events')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('shipment_id', '=', sid)
            .executeTakeFirstOrThrow()
        ).n,
      });
      const before = await snapshot();
      rig.scramble('SIMTS0001', true);
      await s.refresh();
      rig.scramble('SIMTS0001', false);
      assert.deepEqual(await snapshot(), before);

      await rig.advanceTo(37);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.ok(a.pod_ata_at);
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      evs = await s.events(c.id);
      assert.deepEqual(
        evs
          .filter((e: any) => e.attributes.event === `${T}vessel_arrived`)
          .map((e: any) => e.attributes.location_locode),
        ['NLRTM'],
      );
      assert.ok(evs.every((e: any) => e.attributes.invalidated_at === null));
      const got = await s.deliveredAll([`${T}vessel_arrived`, `${T}vessel_discharged`]);
      assert.ok(got.indexOf(`${T}transshipment_departed`) < got.indexOf(`${T}vessel_arrived`));
      const arrived = s.bodies(`${T}vessel_arrived`)[0];
      const port = arrived.included.find((r: any) => r.type === 'port');
      assert.equal(port?.attributes.code ?? port?.attributes.locode, 'NLRTM');
    });

    test('transshipment read before the plan is published: the wrong POD reading invalidated, milestones recomputed, corrections delivered', async () => {
      rig.hidePlan('SIMTS0001', true);
      await rig.advanceTo(10.5);
      const s = await rig.track('SIMTS0001', 'bill_of_lading');
      await s.until(['created']);
      // Without the plan the transshipment port looks like the end of the voyage.
      let a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'SGSIN');
      assert.ok(a.pod_ata_at);
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');

      rig.hidePlan('SIMTS0001', false);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'NLRTM');
      assert.deepEqual(a.transshipment_locodes, ['SGSIN']);
      assert.equal(a.pod_ata_at, null, 'the arrival at the transshipment port no longer counts');
      assert.equal((await podTerminalOf(s))?.code, 'RWG');
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      assert.equal(c.attributes.pod_arrived_at, null);
      assert.equal(c.attributes.pod_discharged_at, null);
      const evs = await s.events(c.id);
      const wrong = evs.filter((e: any) =>
        [`${T}vessel_arrived`, `${T}vessel_discharged`].includes(e.attributes.event),
      );
      assert.equal(wrong.length, 2);
      for (const e of wrong) {
        assert.equal(e.attributes.location_locode, 'SGSIN');
        assert.ok(e.attributes.invalidated_at, `${e.attributes.event} invalidated`);
      }
      const right = evs.filter((e: any) => e.attributes.event.includes('transshipment_'));
      assert.ok(right.length >= 2);
      for (const e of right) assert.equal(e.attributes.invalidated_at, null);
      await s.deliveredAll([
        `${T}transshipment_arrived`,
        `${T}transshipment_discharged`,
        'container.updated',
      ]);
      // The correction as the client receives it: the milestones taken back, the shipment as now read.
      const update = s.bodies('container.updated').at(-1);
      const change = update.included.find((r: any) => r.type === 'container_updated_event');
      assert.deepEqual(change.attributes.changeset.current_status, ['grounded', 'on_ship']);
      assert.equal(change.attributes.changeset.pod_arrived_at[1], null);
      assert.equal(change.attributes.changeset.pod_discharged_at[1], null);
      const shipment = update.included.find((r: any) => r.type === 'shipment');
      assert.equal(shipment.attributes.port_of_discharge_locode, 'NLRTM');
      assert.equal(shipment.attributes.pod_ata_at, null);

      // The rest of the journey is read as if the plan had always been there.
      await rig.advanceTo(37);
      await s.refresh();
      assert.ok((await s.shipment()).data.attributes.pod_ata_at);
      const arrivals = (await s.events(c.id)).filter(
        (e: any) => e.attributes.event === `${T}vessel_arrived` && !e.attributes.invalidated_at,
      );
      assert.deepEqual(
        arrivals.map((e: any) => e.attributes.location_locode),
        ['NLRTM'],
      );
      await s.deliveredAll([`${T}transshipment_departed`]);
    });

    test('barge (SIMFDR): POD NLRTM, feeder_* legs to the inland destination NLMOE', async () => {
      const s = await rig.track('SIMFDR0001', 'bill_of_lading');
      await s.until(['created']);
      await rig.advanceTo(10);
      await s.refresh();
      let a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'NLRTM');
      assert.equal(a.destination_locode, 'NLMOE');
      assert.deepEqual(a.transshipment_locodes, []);
      const terminal = await podTerminalOf(s);
      assert.equal(terminal?.code, 'DDE');

      await rig.advanceTo(33);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.ok(a.pod_ata_at, 'arrived at Rotterdam, the POD');
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'awaiting_inland_transfer');
      await s.deliveredAll([`${T}vessel_arrived`, `${T}vessel_discharged`]);

      await rig.advanceTo(34.5);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship', 'on the barge');
      await s.deliveredAll([`${T}feeder_loaded`, `${T}feeder_departed`]);

      await rig.advanceTo(36);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      const evs = await s.events(c.id);
      for (const e of evs.filter((x: any) => x.attributes.event.includes('feeder_')))
        assert.ok(['NLRTM', 'NLMOE'].includes(e.attributes.location_locode), e.attributes.location_locode);
      assert.deepEqual(
        evs
          .filter((e: any) => e.attributes.event === `${T}vessel_arrived`)
          .map((e: any) => e.attributes.location_locode),
        ['NLRTM'],
      );
      a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'NLRTM', 'the barge arrival does not move the POD');
      assert.equal((await podTerminalOf(s))?.id, terminal?.id);
      await s.deliveredAll([
        `${T}feeder_arrived`,
        `${T}feeder_discharged`,
        `${T}arrived_at_inland_destination`,
      ]);

      await rig.advanceTo(41);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'empty_returned');
      const got = await s.deliveredAll([`${T}full_out`, `${T}empty_in`]);
      assert.ok(got.indexOf(`${T}feeder_discharged`) < got.indexOf(`${T}full_out`));
    });

    test('rail (SIMRAIL): POD USLAX, rail on-carriage to the USCHI ramp', async () => {
      const s = await rig.track('SIMRAIL0001', 'bill_of_lading');
      await s.until(['created']);
      await rig.advanceTo(5);
      await s.refresh();
      let a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_lading_locode, 'CNSGH');
      assert.equal(a.port_of_discharge_locode, 'USLAX');
      assert.equal(a.destination_locode, 'USCHI');
      assert.deepEqual(a.transshipment_locodes, [], 'KRPUS is an on-board call');

      await rig.advanceTo(17.5);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.ok(a.pod_ata_at);
      assert.equal(a.destination_ata_at, null);
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'awaiting_inland_transfer');

      await rig.advanceTo(20);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_rail');
      await s.deliveredAll([`${T}rail_loaded`, `${T}rail_departed`]);

      await rig.advanceTo(24);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.ok(a.destination_ata_at, 'arrived at the inland destination');
      assert.equal(a.port_of_discharge_locode, 'USLAX');
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      await s.deliveredAll([`${T}rail_arrived`, `${T}rail_unloaded`, `${T}arrived_at_inland_destination`]);

      await rig.advanceTo(29);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'empty_returned');
      const got = await s.deliveredAll([`${T}full_out`, `${T}empty_in`]);
      assert.ok(got.indexOf(`${T}vessel_arrived`) < got.indexOf(`${T}rail_loaded`));
      assert.ok(got.indexOf(`${T}rail_unloaded`) < got.indexOf(`${T}empty_in`));
    });
  });
}
