// Issue 12, "done means": the scenario families where the carrier changes its plan or the journey
// ends differently (ETA slips, roll with POD change, POD terminal reassigned, carrier haulage to
// the consignee, empty return), end to end: the simulator process behind one DCSA
// CARRIERS_CONFIG entry, the real engine and API, a real webhook receiver, and the simulated
// clock advanced to several points of each journey (days after the simulator's epoch).

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RIGS, short, type Tracked, useScenarioRig } from '../helpers/scenario-rig.ts';

const T = 'container.transport.';

async function podTerminal(s: Tracked): Promise<{ id: string; code: string } | null> {
  const doc = await s.shipment();
  const ref = doc.data.relationships.pod_terminal.data;
  if (!ref) return null;
  const terminal = doc.included.find((r: any) => r.type === 'terminal' && r.id === ref.id);
  return { id: ref.id, code: terminal?.attributes.smdg_code };
}

for (const [engine, adapter] of RIGS) {
  describe(`re-plan scenarios end to end through the simulator process [${engine}, ${adapter}]`, () => {
    const rig = useScenarioRig(engine, { adapter });

    test('ETA slips (SIMETA): each revision moves pod_eta_at and is announced; the original ETA stays', async () => {
      const s = await rig.track('SIMETA0001', 'bill_of_lading');
      await s.until(['created']);
      const first = (await s.shipment()).data.attributes;
      assert.equal(first.port_of_discharge_locode, 'USLGB');
      assert.equal(first.pod_original_eta_at, first.pod_eta_at);
      let last = first.pod_eta_at;
      // Revisions are published on days 3.8, 6.8 and 10.8, each a later arrival.
      for (const day of [4, 7, 11]) {
        await rig.advanceTo(day);
        await s.refresh();
        const a = (await s.shipment()).data.attributes;
        assert.ok(Date.parse(a.pod_eta_at) > Date.parse(last), `day ${day}: the ETA slipped`);
        assert.equal(a.pod_original_eta_at, first.pod_eta_at);
        assert.equal(a.pod_ata_at, null);
        last = a.pod_eta_at;
      }
      await s.deliveredAll(['shipment.estimated.arrival', `${T}estimated.vessel_arrived`]);
      const slips = s.bodies('shipment.estimated.arrival');
      assert.ok(slips.length >= 2, `${slips.length} ETA announcements`);

      await rig.advanceTo(21);
      await s.refresh();
      const a = (await s.shipment()).data.attributes;
      assert.ok(a.pod_ata_at);
      assert.equal(a.pod_original_eta_at, first.pod_eta_at);
      const [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      const got = await s.deliveredAll([`${T}vessel_arrived`]);
      assert.ok(got.indexOf('shipment.estimated.arrival') < got.indexOf(`${T}vessel_arrived`));
    });

    test('roll with POD change (SIMROLL): DEHAM/CTA replaced by NLRTM/RWG before loading; arrival only at NLRTM', async () => {
      const s = await rig.track('SIMROLL0001', 'bill_of_lading');
      await rig.advanceTo(1);
      await s.until(['created']);
      let a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'DEHAM');
      assert.equal((await podTerminal(s))?.code, 'CTA');
      const firstEta = a.pod_eta_at;

      await rig.advanceTo(3);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'NLRTM', 'the roll moved the POD');
      assert.ok(Date.parse(a.pod_eta_at) > Date.parse(firstEta), 'a week later');
      const rotterdam = await podTerminal(s);
      assert.equal(rotterdam?.code, 'RWG');
      let [c] = await s.containers();
      assert.equal(c.attributes.pod_arrived_at, null);
      await s.deliveredAll(['shipment.estimated.arrival']);

      await rig.advanceTo(10);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'on_ship');
      await s.deliveredAll([`${T}vessel_loaded`, `${T}vessel_departed`]);

      await rig.advanceTo(38);
      await s.refresh();
      a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'NLRTM');
      assert.ok(a.pod_ata_at);
      assert.equal((await podTerminal(s))?.id, rotterdam?.id);
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      const evs = await s.events(c.id);
      const places = (name: string) =>
        evs
          .filter((e: any) => e.attributes.event === `${T}${name}` && !e.attributes.invalidated_at)
          .map((e: any) => e.attributes.location_locode);
      assert.deepEqual(places('vessel_arrived'), ['NLRTM']);
      assert.ok(
        !evs.some((e: any) => e.attributes.location_locode === 'DEHAM' && !e.attributes.invalidated_at),
      );
      await s.deliveredAll([`${T}vessel_arrived`, `${T}vessel_discharged`]);
    });

    test('POD terminal reassigned (SIMTERM): CTA -> CTB, container.pod_terminal_changed once, never null', async () => {
      const s = await rig.track('SIMTERM0001', 'bill_of_lading');
      await s.until(['created']);
      await rig.advanceTo(20);
      await s.refresh();
      const cta = await podTerminal(s);
      assert.equal(cta?.code, 'CTA');
      assert.ok(!s.delivered().includes('container.pod_terminal_changed'));

      await rig.advanceTo(27);
      await s.refresh();
      const ctb = await podTerminal(s);
      assert.equal(ctb?.code, 'CTB');
      const [c] = await s.containers();
      assert.equal(c.relationships.pod_terminal.data?.id, ctb?.id, "the container's POD terminal too");
      await s.deliveredAll(['container.pod_terminal_changed']);
      const body = s.bodies('container.pod_terminal_changed')[0];
      assert.ok(
        body.included.some((r: any) => r.type === 'container'),
        'the body carries the container',
      );

      await rig.advanceTo(34);
      await s.refresh();
      assert.ok((await s.shipment()).data.attributes.pod_ata_at);
      assert.equal((await podTerminal(s))?.id, ctb?.id, 'the arrival at CTB keeps it');
      await rig.advanceTo(36);
      await s.refresh();
      // The gate-out is reported at CTA (the box was moved); the POD terminal stays as planned.
      assert.equal((await podTerminal(s))?.id, ctb?.id);
      await s.deliveredAll([`${T}vessel_arrived`, `${T}full_out`]);
      assert.equal(s.delivered().filter((n) => n === 'container.pod_terminal_changed').length, 1);
    });

    test('carrier haulage (SIMHAUL): full out, then delivered at the consignee with delivered_at', async () => {
      const s = await rig.track('SIMHAUL0001', 'bill_of_lading');
      await s.until(['created']);
      await rig.advanceTo(33);
      await s.refresh();
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'grounded');
      assert.equal(c.attributes.delivered_at, null);

      await rig.advanceTo(35.1);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'picked_up');
      assert.ok(c.attributes.pod_full_out_at);
      assert.equal(c.attributes.delivered_at, null);

      await rig.advanceTo(36.5);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'delivered');
      assert.ok(c.attributes.delivered_at > c.attributes.pod_full_out_at);
      const got = await s.deliveredAll([`${T}full_out`, `${T}delivered`]);
      assert.ok(got.indexOf(`${T}full_out`) < got.indexOf(`${T}delivered`));
      assert.ok(short(await s.events(c.id)).includes('delivered'));

      await rig.advanceTo(39);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'empty_returned');
      await s.deliveredAll([`${T}empty_in`]);
    });

    test('empty return (SIMEMPTY): picked up at the epoch, empty_in a day later, then tracking stops', async () => {
      const s = await rig.track('SIMEMPTY0001', 'bill_of_lading');
      await s.until(['created']);
      const a = (await s.shipment()).data.attributes;
      assert.equal(a.port_of_discharge_locode, 'SGSIN');
      assert.ok(a.pod_ata_at);
      let [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'picked_up');
      assert.ok(c.attributes.pod_full_out_at);
      // What was already there is not announced; only the success.
      assert.deepEqual(await s.deliveredAll(['tracking_request.succeeded']), ['tracking_request.succeeded']);

      await rig.advanceTo(1.2);
      await s.refresh();
      [c] = await s.containers();
      assert.equal(c.attributes.current_status, 'empty_returned');
      assert.ok(c.attributes.empty_terminated_at);
      const got = await s.deliveredAll([`${T}empty_in`, 'tracking_request.tracking_stopped']);
      assert.ok(!got.includes(`${T}vessel_arrived`), 'old milestones are not replayed');
      const stopped = (await s.shipment()).data.attributes;
      assert.equal(stopped.line_tracking_stopped_reason, 'all_containers_terminated');
    });
  });
}
