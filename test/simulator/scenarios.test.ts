import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DcsaEvent } from '../../sim/events.ts';
import { buildJourney } from '../../sim/journeys.ts';
import { matchesReference } from '../../sim/match.ts';
import { isValidImo } from '../../sim/places.ts';
import { lookupNumber, resolveReference, scenarioTable, visibleEvents } from '../../sim/scenarios.ts';
import type { NumberType } from '../../src/carriers/types.ts';
import { terminalBySmdg } from '../../src/reference/data.ts';
import { isValidContainerNumber } from '../../src/util/iso6346.ts';
import { validateEvent } from './dcsa-schema.ts';

const DAY = 86_400_000;
const epoch = Date.parse('2026-03-01T00:00:00Z');
const at = (days: number) => ({ now: epoch + days * DAY, epoch });

function found(type: NumberType, number: string, days: number): DcsaEvent[] {
  const r = lookupNumber(type, number, at(days));
  assert.equal(r.kind, 'found', `${number} (${type}) at epoch+${days}d should be found, got ${r.kind}`);
  return r.kind === 'found' ? r.events : [];
}
const code = (e: DcsaEvent) =>
  e.transportEventTypeCode ?? e.equipmentEventTypeCode ?? e.shipmentEventTypeCode;
const acts = (events: DcsaEvent[]) => events.filter((e) => e.eventClassifierCode === 'ACT');
const where = (e: DcsaEvent) => e.transportCall?.UNLocationCode;
/** "CODE@LOCODE/MODE" of the actual events, in publication order. */
const story = (events: DcsaEvent[]) =>
  acts(events)
    .filter((e) => e.eventType !== 'SHIPMENT')
    .map(
      (e) =>
        `${code(e)}${e.emptyIndicatorCode === 'EMPTY' ? '-E' : ''}@${where(e)}/${e.transportCall?.modeOfTransport}`,
    );

const everyExample = scenarioTable().flatMap((s) =>
  Object.entries(s.examples).map(([type, number]) => ({
    pattern: s.pattern,
    type: type as NumberType,
    number,
  })),
);

describe('scenario library', () => {
  it('is deterministic: same number and clock give the same events and ids', () => {
    for (const { type, number } of everyExample) {
      const a = lookupNumber(type, number, at(40));
      const b = lookupNumber(type, number, at(40));
      assert.deepEqual(a, b);
    }
    // Rebuilt from scratch (no cache), a journey is identical too.
    const ctx = {
      id: 'bl:SIMTS42',
      billOfLading: 'SIMTS42',
      booking: 'BKGTS42',
      epochMs: epoch,
      containerCount: 2,
    };
    assert.deepEqual(buildJourney('transshipment', ctx), buildJourney('transshipment', ctx));
    // Different numbers tell different stories (ids and containers differ).
    const x = found('bill_of_lading', 'SIMTS1', 40);
    const y = found('bill_of_lading', 'SIMTS2', 40);
    assert.notEqual(x[0]!.eventID, y[0]!.eventID);
  });

  it('produces events valid against the DCSA T&T 2.2 schema for every scenario', () => {
    let checked = 0;
    for (const { number, type } of everyExample) {
      const r = lookupNumber(type, number, at(90));
      if (r.kind !== 'found') continue;
      const ids = new Set<string>();
      for (const e of r.events) {
        // CANC is the one deliberate departure: carriers use codes outside the 2.2 enum.
        const errors = validateEvent(e).filter(
          (m) => !(e.shipmentEventTypeCode === 'CANC' && /shipmentEventTypeCode/.test(m)),
        );
        assert.deepEqual(errors, [], `${number}: ${JSON.stringify(e)}`);
        assert.ok(!ids.has(e.eventID), 'eventIDs are unique');
        ids.add(e.eventID);
        if (e.eventType === 'SHIPMENT') assert.equal(e.eventDateTime, e.eventCreatedDateTime);
        const tc = e.transportCall;
        if (tc?.facilityCode)
          assert.ok(terminalBySmdg(tc.UNLocationCode, tc.facilityCode), `real terminal ${tc.facilityCode}`);
        if (tc?.vessel) assert.ok(isValidImo(tc.vessel.vesselIMONumber));
        if (e.equipmentReference)
          assert.ok(isValidContainerNumber(e.equipmentReference), e.equipmentReference);
        for (const r2 of e.references ?? []) assert.ok(isValidContainerNumber(r2.referenceValue));
        checked++;
      }
    }
    assert.ok(checked > 300, `checked ${checked} events`);
  });

  it('publishes an actual event only once it has happened, in journey order', () => {
    for (const n of ['SIMBL1C7', 'SIMTS7', 'SIMRAIL7', 'SIMFDR7', 'SIMETA7', 'SIMROLL7', 'SIMEMPTY7']) {
      const r = resolveReference('TRD', n, epoch);
      assert.equal(r?.kind, 'shipment');
      if (r?.kind !== 'shipment') continue;
      for (const se of r.shipment.events) {
        if (se.event.eventClassifierCode === 'ACT')
          assert.ok(se.createdMs >= se.eventMs, `${n} ACT created after it happened`);
      }
      const boxEvents = r.shipment.events.filter((e) => e.event.eventType === 'EQUIPMENT');
      for (let i = 1; i < boxEvents.length; i++)
        assert.ok(boxEvents[i]!.eventMs >= boxEvents[i - 1]!.eventMs);
      // Visibility is a prefix of the publication order.
      const now = epoch + 10 * DAY;
      assert.ok(visibleEvents(r.shipment, now).every((e) => e.createdMs <= now));
      assert.ok(
        r.shipment.events.slice(visibleEvents(r.shipment, now).length).every((e) => e.createdMs > now),
      );
    }
  });

  it('direct journey: depot, gate-in, load, on-board call, arrival, discharge, full out, empty return', () => {
    assert.deepEqual(story(found('bill_of_lading', 'SIMBL1C1', 90)), [
      'GTOT-E@CNNBO/TRUCK',
      'GTIN@CNNBO/TRUCK',
      'LOAD@CNNBO/VESSEL',
      'DEPA@CNNBO/VESSEL',
      'ARRI@MYTPP/VESSEL',
      'DEPA@MYTPP/VESSEL',
      'ARRI@DEHAM/VESSEL',
      'DISC@DEHAM/VESSEL',
      'GTOT@DEHAM/TRUCK',
      'GTIN-E@DEHAM/TRUCK',
    ]);
    const events = found('bill_of_lading', 'SIMBL1C1', 90);
    const gtotEmpty = events.find(
      (e) => e.equipmentEventTypeCode === 'GTOT' && e.emptyIndicatorCode === 'EMPTY',
    )!;
    assert.equal(gtotEmpty.transportCall?.facilityTypeCode, 'DEPO');
    const gtin = events.find((e) => e.equipmentEventTypeCode === 'GTIN' && e.emptyIndicatorCode === 'LADEN')!;
    assert.equal(gtin.transportCall?.facilityTypeCode, 'POTE');
    assert.equal(gtin.eventLocation?.facilityCode, 'BLCT2');
    // PLN and EST of departure and arrival exist alongside the actuals.
    for (const cls of ['PLN', 'EST'] as const) {
      assert.ok(
        events.some(
          (e) => e.eventClassifierCode === cls && e.transportEventTypeCode === 'DEPA' && where(e) === 'CNNBO',
        ),
      );
      assert.ok(
        events.some(
          (e) => e.eventClassifierCode === cls && e.transportEventTypeCode === 'ARRI' && where(e) === 'DEHAM',
        ),
      );
    }
  });

  it('multi-container B/L shares transport events and has per-container equipment events', () => {
    const events = found('bill_of_lading', 'SIMBL3C1', 90);
    const containers = new Set(events.flatMap((e) => (e.equipmentReference ? [e.equipmentReference] : [])));
    assert.equal(containers.size, 3);
    for (const e of events.filter((x) => x.eventType === 'TRANSPORT')) {
      assert.deepEqual(new Set(e.references?.map((r) => r.referenceValue)), containers);
      assert.deepEqual(e.documentReferences, [
        { documentReferenceType: 'BKG', documentReferenceValue: 'BKGBL3C1' },
        { documentReferenceType: 'TRD', documentReferenceValue: 'SIMBL3C1' },
      ]);
    }
    for (const c of containers) assert.equal(events.filter((e) => e.equipmentReference === c).length, 6);
    // Each container is then trackable on its own: its equipment events plus the shared transport events.
    const [first] = containers;
    const own = found('container', first!, 90);
    assert.ok(own.every((e) => e.equipmentReference === undefined || e.equipmentReference === first));
    assert.equal(
      own.filter((e) => e.eventType === 'TRANSPORT').length,
      events.filter((e) => e.eventType === 'TRANSPORT').length,
    );
    // SIMBL9C: nine containers.
    const nine = resolveReference('TRD', 'SIMBL9CX', epoch);
    assert.equal(nine?.kind === 'shipment' && nine.shipment.containers.length, 9);
  });

  it('transshipment: discharge and load at SGSIN onto another vessel; HKHKG and LKCMB stay on board', () => {
    const events = found('bill_of_lading', 'SIMTS1', 90);
    assert.deepEqual(story(events), [
      'GTOT-E@CNSGH/TRUCK',
      'GTIN@CNSGH/TRUCK',
      'LOAD@CNSGH/VESSEL',
      'DEPA@CNSGH/VESSEL',
      'ARRI@HKHKG/VESSEL',
      'DEPA@HKHKG/VESSEL',
      'ARRI@SGSIN/VESSEL',
      'DISC@SGSIN/VESSEL',
      'LOAD@SGSIN/VESSEL',
      'DEPA@SGSIN/VESSEL',
      'ARRI@LKCMB/VESSEL',
      'DEPA@LKCMB/VESSEL',
      'ARRI@NLRTM/VESSEL',
      'DISC@NLRTM/VESSEL',
      'GTOT@NLRTM/TRUCK',
      'GTIN-E@NLRTM/TRUCK',
    ]);
    const vesselAt = (c: string, loc: string) =>
      acts(events).find((e) => code(e) === c && where(e) === loc)!.transportCall!.vessel!.vesselIMONumber;
    assert.notEqual(vesselAt('DISC', 'SGSIN'), vesselAt('LOAD', 'SGSIN'));
  });

  it('barge feeder leg and rail on-carriage use BARGE and RAIL transport calls', () => {
    const barge = story(found('bill_of_lading', 'SIMFDR1', 90));
    assert.deepEqual(barge.slice(7), [
      'DISC@NLRTM/VESSEL',
      'LOAD@NLRTM/BARGE',
      'DEPA@NLRTM/BARGE',
      'ARRI@NLMOE/BARGE',
      'DISC@NLMOE/BARGE',
      'GTOT@NLMOE/TRUCK',
      'GTIN-E@NLMOE/TRUCK',
    ]);
    const rail = found('bill_of_lading', 'SIMRAIL1', 90);
    assert.deepEqual(story(rail).slice(7), [
      'DISC@USLAX/VESSEL',
      'LOAD@USLAX/RAIL',
      'DEPA@USLAX/RAIL',
      'ARRI@USCHI/RAIL',
      'DISC@USCHI/RAIL',
      'GTOT@USCHI/TRUCK',
      'GTIN-E@USCHI/TRUCK',
    ]);
    const ramp = rail.find(
      (e) => e.transportEventTypeCode === 'ARRI' && where(e) === 'USCHI' && e.eventClassifierCode === 'ACT',
    );
    assert.equal(ramp?.transportCall?.facilityTypeCode, 'RAMP');
    assert.ok(
      rail.some(
        (e) => e.eventClassifierCode === 'EST' && e.transportEventTypeCode === 'ARRI' && where(e) === 'USCHI',
      ),
    );
  });

  it('ETA revisions arrive as new EST events with later eventCreatedDateTime as time passes', () => {
    const podEta = (days: number) =>
      found('bill_of_lading', 'SIMETA1', days).filter(
        (e) => e.eventClassifierCode === 'EST' && e.transportEventTypeCode === 'ARRI' && where(e) === 'USLGB',
      );
    const early = podEta(0);
    const late = podEta(30);
    assert.equal(early.length, 1);
    assert.ok(late.length >= 4, `revisions: ${late.length}`);
    assert.equal(new Set(late.map((e) => e.eventID)).size, late.length);
    assert.equal(new Set(late.map((e) => e.eventDateTime)).size, late.length);
    const created = late.map((e) => Date.parse(e.eventCreatedDateTime));
    assert.deepEqual(
      created,
      [...created].sort((a, b) => a - b),
    );
    assert.ok(late.some((e) => e.delayReasonCode === 'WEA'));
    const pln = found('bill_of_lading', 'SIMETA1', 30).find(
      (e) => e.eventClassifierCode === 'PLN' && where(e) === 'USLGB',
    )!;
    const act = found('bill_of_lading', 'SIMETA1', 30).find(
      (e) => e.eventClassifierCode === 'ACT' && e.transportEventTypeCode === 'ARRI' && where(e) === 'USLGB',
    )!;
    assert.ok(
      Date.parse(act.eventDateTime) - Date.parse(pln.eventDateTime) > DAY,
      'arrival slipped more than a day',
    );
  });

  it('rolled cargo: the original plan stays as PLN/EST, the box sails on another vessel to a new POD', () => {
    const before = found('bill_of_lading', 'SIMROLL1', 0);
    const after = found('bill_of_lading', 'SIMROLL1', 90);
    const plannedPod = before
      .filter((e) => e.eventClassifierCode === 'PLN' && e.transportEventTypeCode === 'ARRI')
      .map(where);
    assert.ok(plannedPod.includes('DEHAM'));
    assert.ok(!plannedPod.includes('NLRTM'));
    const load = acts(after).find((e) => e.equipmentEventTypeCode === 'LOAD')!;
    const originalDepa = before.find(
      (e) => e.eventClassifierCode === 'PLN' && e.transportEventTypeCode === 'DEPA',
    )!;
    assert.notEqual(
      load.transportCall!.vessel!.vesselIMONumber,
      originalDepa.transportCall!.vessel!.vesselIMONumber,
    );
    assert.notEqual(load.transportCall!.exportVoyageNumber, originalDepa.transportCall!.exportVoyageNumber);
    assert.equal(where(acts(after).find((e) => e.equipmentEventTypeCode === 'DISC')!), 'NLRTM');
    assert.ok(!acts(after).some((e) => where(e) === 'DEHAM'));
    assert.ok(after.some((e) => e.changeRemark?.includes('rolled')));
  });

  it('empty-return scenario completes one simulated day after the epoch', () => {
    const atEpoch = found('bill_of_lading', 'SIMEMPTY1', 0);
    const emptyIn = (events: DcsaEvent[]) =>
      events.some((e) => e.equipmentEventTypeCode === 'GTIN' && e.emptyIndicatorCode === 'EMPTY');
    assert.ok(atEpoch.some((e) => e.equipmentEventTypeCode === 'GTOT' && e.emptyIndicatorCode === 'LADEN'));
    assert.ok(!emptyIn(atEpoch));
    assert.ok(emptyIn(found('bill_of_lading', 'SIMEMPTY1', 1.5)));
  });

  it('manifest delay: not found for three simulated days, then a back-filled journey', () => {
    for (const [type, n] of [
      ['bill_of_lading', 'SIMLATE1'],
      ['booking_number', 'BKGLATE1'],
      ['container', 'SIMU8000009'],
    ] as const) {
      assert.equal(lookupNumber(type, n, at(2.99)).kind, 'not_found', n);
      const events = found(type, n, 3);
      assert.ok(events.length > 3);
      assert.ok(events.every((e) => Date.parse(e.eventCreatedDateTime) >= epoch + 3 * DAY));
    }
  });

  it('booking first: only CONF until the containers are assigned, days later', () => {
    const first = found('booking_number', 'SIMBKG1', 0);
    assert.equal(first.length, 1);
    assert.equal(first[0]!.shipmentEventTypeCode, 'CONF');
    assert.equal(first[0]!.documentID, 'SIMBKG1');
    assert.equal(first[0]!.references, undefined);
    assert.equal(lookupNumber('bill_of_lading', 'BOLBKG1', at(0)).kind, 'not_found');
    assert.equal(found('booking_number', 'SIMBKG1', 1).length, 1);
    const later = found('booking_number', 'SIMBKG1', 4);
    assert.equal(new Set(later.flatMap((e) => (e.equipmentReference ? [e.equipmentReference] : []))).size, 2);
    assert.ok(later.some((e) => e.eventType === 'TRANSPORT' && e.eventClassifierCode === 'PLN'));
  });

  it('cancelled booking: SHIPMENT CANC and no transport data', () => {
    for (const [type, n] of [
      ['bill_of_lading', 'SIMCANC1'],
      ['booking_number', 'BKGCANC1'],
      ['booking_number', 'SIMCANC1'],
    ] as const) {
      const events = found(type, n, 0);
      assert.ok(events.some((e) => e.shipmentEventTypeCode === 'CANC'));
      assert.ok(events.every((e) => e.eventType === 'SHIPMENT'));
    }
  });

  it('unknown, never-found and failing numbers', () => {
    assert.equal(lookupNumber('bill_of_lading', 'SIMNONE1', at(365)).kind, 'not_found');
    assert.equal(lookupNumber('bill_of_lading', 'MAEU123456789', at(0)).kind, 'not_found');
    assert.equal(lookupNumber('container', 'MSKU9070323', at(0)).kind, 'not_found');
    assert.equal(lookupNumber('container', 'SIMU1000008', at(0)).kind, 'not_found', 'bad check digit');
    assert.equal(lookupNumber('container', 'SIMU0000002', at(30)).kind, 'not_found');
    for (const type of ['bill_of_lading', 'booking_number', 'container'] as const) {
      assert.equal(lookupNumber(type, 'TEST-TR-FAILED', at(0)).kind, 'failure');
      // The demo's empty return comes a day after the epoch.
      const events = found(type, 'test-tr-succeeded', 2);
      assert.ok(
        events.some((e) => e.equipmentEventTypeCode === 'GTIN' && e.emptyIndicatorCode === 'EMPTY'),
        type,
      );
    }
  });

  it('every documented example number behaves as its scenario says', () => {
    for (const { pattern, type, number } of everyExample) {
      const r = lookupNumber(type, number, at(90));
      const expected =
        pattern === 'SIMNONE' ? 'not_found' : pattern === 'TEST-TR-FAILED' ? 'failure' : 'found';
      assert.equal(r.kind, expected, `${number} (${type})`);
      if (r.kind === 'found' && pattern.startsWith('SIM'))
        assert.ok(r.shipment.scenario.startsWith(pattern.slice(0, 6)));
      // The test numbers stand for their first container; every simulated box number is ISO 6346.
      if (type === 'container' && pattern.startsWith('SIM'))
        assert.ok(isValidContainerNumber(number), number);
    }
    // The SIMU rule: the container is the only box of B/L <prefix>U<serial>.
    const r = resolveReference('EQ', 'SIMU2000001', epoch);
    assert.equal(r?.kind === 'shipment' && r.shipment.billOfLading, 'SIMTSU200000');
    assert.equal(r?.kind === 'shipment' && r.shipment.containers[0]!.number, 'SIMU2000001');
  });

  it('reference matching follows the DCSA rules per event type', () => {
    const events = found('bill_of_lading', 'SIMBL1C1', 90);
    const shipment = events.find((e) => e.eventType === 'SHIPMENT')!; // ISSU/DRFT of the TRD
    const transport = events.find((e) => e.eventType === 'TRANSPORT')!;
    const equipment = events.find((e) => e.eventType === 'EQUIPMENT')!;
    const box = equipment.equipmentReference!;
    const s = (v: string) => new Set([v]);
    assert.ok(matchesReference(shipment, 'TRD', s('SIMBL1C1')));
    assert.ok(!matchesReference(shipment, 'BKG', s('BKGBL1C1')), 'a TRD document is not the booking');
    assert.ok(!matchesReference(shipment, 'BKG', s('SIMBL1C1')), 'documentTypeCode must match the filter');
    assert.ok(matchesReference(transport, 'BKG', s('BKGBL1C1')));
    assert.ok(matchesReference(transport, 'TRD', s('SIMBL1C1')));
    assert.ok(!matchesReference(transport, 'TRD', s('BKGBL1C1')));
    assert.ok(matchesReference(transport, 'EQ', s(box)), 'EQ references on transport events');
    assert.ok(matchesReference(equipment, 'EQ', s(box)));
    assert.ok(matchesReference(shipment, 'EQ', s(box)), 'EQ references on shipment events');
    assert.ok(!matchesReference(equipment, 'EQ', s('TGHU0000000')));
  });
});
