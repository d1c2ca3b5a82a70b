import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NumberType } from '../../src/carriers/types.ts';
import { zoneOfLocode } from '../../src/reference/data.ts';
import { call, directJourney, equipment, shipment, transport } from './builders.ts';
import { names, normalizeDcsa } from './fixtures.ts';

const run = (events: unknown[], numberType: NumberType = 'bill_of_lading', number = 'BL1') =>
  normalizeDcsa(events, { numberType, number, zoneOf: zoneOfLocode });

describe('normalize: rules', () => {
  it('garbage in gives an empty snapshot with skipped counts, never an exception', () => {
    const snap = run([
      null,
      1,
      'x',
      [],
      {},
      { eventType: 'TRANSPORT' },
      { eventType: 'EQUIPMENT', eventClassifierCode: 'ACT' },
    ]);
    assert.deepEqual(snap.containers, []);
    assert.equal(snap.parsed_event_count, 0);
    assert.equal(snap.skipped_event_count, 7);
    assert.equal(snap.shipment.port_of_lading_locode, null);
    assert.equal(
      normalizeDcsa('nope' as unknown as unknown[], {
        numberType: 'container',
        number: 'x',
        zoneOf: () => null,
      }).skipped_event_count,
      0,
    );
  });

  it('booking cancellation: CANC (unofficial code) or REJE on the booking; a later confirmation reinstates', () => {
    assert.equal(run([shipment('CANC', 'BKG', '2024-01-02T00:00:00Z')]).booking_cancelled, true);
    assert.equal(run([shipment('CANC', 'TRD', '2024-01-02T00:00:00Z')]).booking_cancelled, true);
    assert.equal(run([shipment('REJE', 'BKG', '2024-01-02T00:00:00Z')]).booking_cancelled, true);
    assert.equal(run([shipment('REJE', 'SHI', '2024-01-02T00:00:00Z')]).booking_cancelled, false);
    assert.equal(run([shipment('CONF', 'BKG', '2024-01-01T00:00:00Z')]).booking_cancelled, false);
    const reinstated = [
      shipment('CANC', 'BKG', '2024-01-02T00:00:00Z'),
      shipment('CONF', 'BKG', '2024-01-03T00:00:00Z'),
    ];
    assert.equal(run(reinstated).booking_cancelled, false);
    assert.equal(run(reinstated.reverse()).booking_cancelled, false);
  });

  it('a booking with vessel calls only (no equipment yet) still gets POL, POD and estimates', () => {
    const pol = call('CNYTN', { imo: '9778791', exp: '417E' });
    const pod = call('USLAX', { imo: '9778791', imp: '417E' });
    const snap = run(
      [
        transport('DEPA', pol, {
          cls: 'PLN',
          at: '2024-05-03T12:00:00+08:00',
          created: '2024-04-01T00:00:00Z',
        }),
        transport('DEPA', pol, {
          cls: 'EST',
          at: '2024-05-04T12:00:00+08:00',
          created: '2024-04-20T00:00:00Z',
        }),
        transport('ARRI', pod, {
          cls: 'EST',
          at: '2024-05-17T06:00:00-07:00',
          created: '2024-04-20T00:00:00Z',
        }),
      ],
      'booking_number',
      'BK1',
    );
    assert.deepEqual(snap.containers, []);
    assert.equal(snap.shipment.port_of_lading_locode, 'CNYTN');
    assert.equal(snap.shipment.port_of_discharge_locode, 'USLAX');
    assert.equal(snap.shipment.pol_etd_at, '2024-05-04T04:00:00.000Z');
    assert.equal(snap.shipment.pod_eta_at, '2024-05-17T13:00:00.000Z');
  });

  it('a container lookup answered with vessel calls only describes that container', () => {
    const pol = call('CNYTN', { imo: '9778791', exp: '417E' });
    const mid = call('SGSIN', { imo: '9778791', exp: '417E' });
    const pod = call('NLRTM', { imo: '9778791', imp: '417E' });
    const snap = run(
      [
        transport('DEPA', pol, { at: '2024-05-03T12:00:00+08:00' }),
        transport('ARRI', mid, { at: '2024-05-08T12:00:00+08:00' }),
        transport('DEPA', mid, { at: '2024-05-09T12:00:00+08:00' }),
        transport('ARRI', pod, { cls: 'EST', at: '2024-06-01T06:00:00+02:00' }),
      ],
      'container',
      'mscu 123456-6',
    );
    assert.equal(snap.containers.length, 1);
    const c = snap.containers[0]!;
    assert.equal(c.number, 'MSCU1234566');
    assert.deepEqual(names(c.transport_events), ['vessel_departed']);
    assert.equal(c.current_status, 'on_ship');
    assert.deepEqual(
      c.estimated_events.map((e) => [e.event, e.location_locode]),
      [['container.transport.estimated.vessel_arrived', 'NLRTM']],
    );
    assert.deepEqual(snap.shipment.transshipment_locodes, []);
  });

  it('estimates: the newest-created wins whatever the input order, and an actual suppresses it', () => {
    const pod = call('USLAX', { imo: '9778791', imp: '417E' });
    const older = transport('ARRI', pod, {
      cls: 'EST',
      at: '2024-05-16T06:00:00-07:00',
      created: '2024-05-01T00:00:00Z',
    });
    const newer = transport('ARRI', pod, {
      cls: 'EST',
      at: '2024-05-18T06:00:00-07:00',
      created: '2024-05-10T00:00:00Z',
    });
    const base = directJourney().filter(
      (e) => e.eventType !== 'TRANSPORT' || e.transportEventTypeCode !== 'ARRI',
    );
    const a = run([...base, older, newer]);
    const b = run([newer, ...base, older]);
    assert.deepEqual(a, b);
    assert.equal(a.shipment.pod_eta_at, '2024-05-18T13:00:00.000Z');
    assert.deepEqual(
      a.containers[0]!.estimated_events.map((e) => e.estimated_time),
      ['2024-05-18T13:00:00.000Z'],
    );
    const withActual = run([...directJourney(), older, newer]);
    assert.deepEqual(withActual.containers[0]!.estimated_events, []);
    assert.equal(withActual.shipment.pod_eta_at, '2024-05-18T13:00:00.000Z');
  });

  it('a correction (same semantic key, later created) updates the event and keeps its key', () => {
    const pod = call('USLAX', { imo: '9778791', imp: '417E' });
    const first = run(directJourney());
    const corrected = run([
      ...directJourney(),
      transport('ARRI', pod, { at: '2024-05-17T09:00:00-07:00', created: '2024-05-18T00:00:00Z' }),
    ]);
    const before = first.containers[0]!.transport_events.find((e) => e.event.endsWith('vessel_arrived'))!;
    const after = corrected.containers[0]!.transport_events.find((e) => e.event.endsWith('vessel_arrived'))!;
    assert.equal(before.key, after.key);
    assert.equal(before.timestamp, '2024-05-17T13:00:00.000Z');
    assert.equal(after.timestamp, '2024-05-17T16:00:00.000Z');
    assert.equal(
      corrected.containers[0]!.transport_events.length,
      first.containers[0]!.transport_events.length,
    );
  });

  it('keys do not depend on eventIDs', () => {
    const a = run(directJourney());
    const b = run(directJourney()); // same content, fresh eventIDs
    const strip = (s: typeof a) =>
      s.containers.map((c) => c.transport_events.map(({ source_event_ids: _ids, ...rest }) => rest));
    assert.deepEqual(strip(a), strip(b));
  });

  it('vessel_berthed only when the carrier reports a berth arrival', () => {
    const berth = call('USLAX', { imo: '9778791', imp: '417E', facilityType: 'BRTH' });
    const snap = run([...directJourney(), transport('ARRI', berth, { at: '2024-05-17T09:00:00-07:00' })]);
    const evs = names(snap.containers[0]!.transport_events);
    assert.ok(evs.includes('vessel_berthed'));
    assert.ok(evs.includes('vessel_arrived'));
    assert.ok(!names(run(directJourney()).containers[0]!.transport_events).includes('vessel_berthed'));
  });

  it('a discharge and reload on the same vessel (restow) is not a transshipment', () => {
    const v = { imo: '9778791', exp: '417E', imp: '417E' };
    const snap = run([
      equipment('LOAD', { at: '2024-05-03T05:00:00+08:00', call: call('CNYTN', v) }),
      equipment('DISC', { at: '2024-05-08T05:00:00+08:00', call: call('SGSIN', v) }),
      equipment('LOAD', { at: '2024-05-08T09:00:00+08:00', call: call('SGSIN', v) }),
      equipment('DISC', { at: '2024-06-01T05:00:00+02:00', call: call('NLRTM', v) }),
    ]);
    assert.deepEqual(snap.shipment.transshipment_locodes, []);
    assert.equal(snap.shipment.port_of_discharge_locode, 'NLRTM');
    assert.deepEqual(names(snap.containers[0]!.transport_events), ['vessel_loaded', 'vessel_discharged']);
  });

  it('empty repositioning moves and pre-carriage rail are kept raw only', () => {
    const rail = call('USCHI', { mode: 'RAIL', exp: 'R1' });
    const snap = run([
      equipment('LOAD', {
        empty: 'EMPTY',
        at: '2024-04-20T05:00:00+08:00',
        call: call('CNSHK', { imo: '1234567' }),
      }),
      equipment('LOAD', { at: '2024-04-25T05:00:00-05:00', call: rail }),
      transport('DEPA', rail, { at: '2024-04-25T08:00:00-05:00' }),
      ...directJourney(),
    ]);
    const evs = names(snap.containers[0]!.transport_events);
    assert.ok(!evs.some((n) => n.startsWith('rail_')));
    assert.equal(evs[0], 'full_in');
  });

  it('equipment events without a container reference go to the only container', () => {
    const events = directJourney();
    (events[5] as Record<string, unknown>).equipmentReference = undefined;
    const snap = run(events);
    assert.equal(snap.containers.length, 1);
    assert.equal(names(snap.containers[0]!.transport_events).at(-1), 'full_out');
  });

  it('carrier-haulage delivery and an unknown zone', () => {
    const snap = normalizeDcsa(
      [
        ...directJourney(),
        equipment('DROP', { at: '2024-05-21T10:00:00', location: { UNLocationCode: 'USXXX' } }),
      ],
      {
        numberType: 'bill_of_lading',
        number: 'BL1',
        zoneOf: (l) => {
          if (l === 'USXXX') throw new Error('boom'); // a broken lookup must not break normalization
          return zoneOfLocode(l);
        },
      },
    );
    const c = snap.containers[0]!;
    const delivered = c.transport_events.at(-1)!;
    assert.equal(delivered.event, 'container.transport.delivered');
    assert.equal(delivered.timestamp, '2024-05-21T10:00:00.000Z');
    assert.equal(delivered.timezone, null);
    assert.equal(delivered.timestamp_inferred_zone, true);
    assert.equal(c.current_status, 'delivered');
  });

  it('orders containers by number and events by (timestamp, key)', () => {
    const snap = run([...directJourney('TGHU5555550'), ...directJourney('CMAU1000015')]);
    assert.deepEqual(
      snap.containers.map((c) => c.number),
      ['CMAU1000015', 'TGHU5555550'],
    );
    for (const c of snap.containers) {
      const keys = c.transport_events.map((e) => `${e.timestamp}|${e.key}`);
      assert.deepEqual(keys, [...keys].sort());
      assert.equal(new Set(c.transport_events.map((e) => e.key)).size, keys.length);
    }
  });
});
