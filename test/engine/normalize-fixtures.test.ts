import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadFixture, names, normalizeDcsa, normalizeFixture } from './fixtures.ts';

describe('normalize: recorded-style DCSA journeys', () => {
  it('direct journey: gate, load, sail, arrive, discharge, pick-up, empty return', () => {
    const snap = normalizeFixture('direct', 'bill_of_lading', 'HLCUSHA2403ABC1');
    assert.equal(snap.containers.length, 1);
    const c = snap.containers[0]!;
    assert.deepEqual(names(c.transport_events), [
      'empty_out',
      'full_in',
      'vessel_loaded',
      'vessel_departed',
      'vessel_arrived',
      'vessel_discharged',
      'full_out',
      'empty_in',
    ]);
    assert.deepEqual(
      c.transport_events.map((e) => e.location_locode),
      ['CNYTN', 'CNYTN', 'CNYTN', 'CNYTN', 'NLRTM', 'NLRTM', 'NLRTM', 'NLRTM'],
    );
    // The Singapore call (box stays on board) produces nothing.
    assert.ok(!c.transport_events.some((e) => e.location_locode === 'SGSIN'));
    assert.equal(c.number, 'HLXU1234561');
    assert.equal(c.iso_equipment_code, '45G1');
    assert.equal(c.equipment_type, 'dry');
    assert.equal(c.equipment_length, 40);
    assert.equal(c.equipment_height, 'high_cube');
    assert.equal(c.seal_number, 'HL4471223');
    assert.equal(c.current_status, 'empty_returned');
    assert.equal(c.pod_arrived_at, '2024-04-03T03:40:00.000Z');
    assert.equal(c.pod_discharged_at, '2024-04-03T17:20:00.000Z');
    assert.equal(c.pod_full_out_at, '2024-04-06T08:00:00.000Z');
    assert.equal(c.empty_terminated_at, '2024-04-10T13:00:00.000Z');
    // Both estimates have matching actuals, so none is shown.
    assert.deepEqual(c.estimated_events, []);

    const loaded = c.transport_events[2]!;
    assert.equal(loaded.voyage_number, '412W');
    assert.deepEqual(loaded.vessel, { imo: '9501368', name: 'Rotterdam Express' });
    assert.deepEqual(loaded.terminal, { port_locode: 'CNYTN', smdg_code: 'YICT' });
    assert.equal(loaded.timezone, 'Asia/Shanghai');
    assert.equal(loaded.mode, 'vessel');
    assert.equal(loaded.data_source, 'shipping_line');
    assert.equal(loaded.timestamp_inferred_zone, false);
    assert.deepEqual(loaded.source_event_ids, ['5e51e72c-d872-4f3d-8a3d-cc1d4c8b0c06']);
    // Arrivals carry the import voyage.
    assert.equal(c.transport_events[4]!.voyage_number, '412W');
    assert.equal(c.transport_events[0]!.mode, null);

    assert.deepEqual(snap.shipment, {
      bill_of_lading_number: null, // a B/L request: the number asked for is the B/L
      port_of_lading_locode: 'CNYTN',
      port_of_discharge_locode: 'NLRTM',
      destination_locode: null,
      transshipment_locodes: [],
      pod_terminal: { port_locode: 'NLRTM', smdg_code: 'EMX' },
      pod_vessel: { imo: '9501368', name: 'Rotterdam Express' },
      pod_voyage_number: '412W',
      // EST beats PLN; the newest estimate wins.
      pol_etd_at: '2024-03-06T18:00:00.000Z',
      pol_atd_at: '2024-03-06T19:30:00.000Z',
      pod_eta_at: '2024-04-03T04:00:00.000Z',
      pod_ata_at: '2024-04-03T03:40:00.000Z',
      destination_eta_at: null,
      destination_ata_at: null,
    });
    assert.equal(snap.booking_cancelled, false);
    assert.equal(snap.parsed_event_count, 15); // 16 items, one repeated eventID
    assert.equal(snap.skipped_event_count, 0);
  });

  it('transshipment: two containers, Busan -> Singapore -> Hamburg, intermediate Hong Kong call ignored', () => {
    const snap = normalizeFixture('transshipment', 'bill_of_lading', 'CMDUKRP2405001');
    assert.deepEqual(
      snap.containers.map((c) => c.number),
      ['CMAU1000015', 'CMAU1000020'],
    );
    const [dry, reefer] = snap.containers;
    const journey = [
      'full_in',
      'vessel_loaded',
      'vessel_departed',
      'transshipment_arrived',
      'transshipment_discharged',
      'transshipment_loaded',
      'transshipment_departed',
      'vessel_arrived',
      'vessel_discharged',
    ];
    assert.deepEqual(names(dry!.transport_events), [...journey, 'full_out']);
    assert.deepEqual(names(reefer!.transport_events), journey);
    assert.ok(
      ![...dry!.transport_events, ...reefer!.transport_events].some((e) => e.location_locode === 'HKHKG'),
    );
    assert.equal(dry!.current_status, 'picked_up');
    assert.equal(reefer!.current_status, 'grounded');
    assert.equal(reefer!.equipment_type, 'reefer');
    assert.equal(reefer!.equipment_length, 40);
    assert.equal(reefer!.equipment_height, 'standard');
    assert.equal(dry!.equipment_length, 20);
    assert.equal(dry!.seal_number, 'F1234567');
    // Transport events apply to both containers of the B/L.
    assert.equal(dry!.pod_arrived_at, reefer!.pod_arrived_at);
    const ts = dry!.transport_events.filter((e) => e.event.includes('transshipment_'));
    assert.deepEqual(
      ts.map((e) => [e.location_locode, e.vessel?.name]),
      [
        ['SGSIN', 'CMA CGM Almaviva'],
        ['SGSIN', 'CMA CGM Almaviva'],
        ['SGSIN', 'CMA CGM Tage'],
        ['SGSIN', 'CMA CGM Tage'],
      ],
    );
    assert.equal(snap.shipment.port_of_lading_locode, 'KRPUS');
    assert.equal(snap.shipment.port_of_discharge_locode, 'DEHAM');
    assert.deepEqual(snap.shipment.transshipment_locodes, ['SGSIN']);
    assert.deepEqual(snap.shipment.pod_vessel, { imo: '9839179', name: 'CMA CGM Tage' });
    assert.deepEqual(snap.shipment.pod_terminal, { port_locode: 'DEHAM', smdg_code: 'CTA' });
    assert.equal(snap.shipment.pod_eta_at, '2024-06-09T04:00:00.000Z');
    assert.equal(snap.shipment.pod_ata_at, '2024-06-10T01:25:00.000Z');
  });

  it('rail on-carriage: Los Angeles discharge, rail to Chicago, zone-less local times', () => {
    const snap = normalizeFixture('rail', 'container', 'MSKU7000013');
    const c = snap.containers[0]!;
    assert.deepEqual(names(c.transport_events), [
      'full_in',
      'vessel_loaded',
      'vessel_departed',
      'vessel_arrived',
      'vessel_discharged',
      'rail_loaded',
      'rail_departed',
      'arrived_at_inland_destination',
      'rail_arrived',
      'rail_unloaded',
      'full_out',
      'empty_in',
    ]);
    // "2024-05-18T02:45:00" at Los Angeles (PDT) and "2024-05-24T23:40:00" at Chicago (CDT).
    const discharged = c.transport_events[4]!;
    assert.equal(discharged.timestamp, '2024-05-18T09:45:00.000Z');
    assert.equal(discharged.timestamp_inferred_zone, true);
    assert.equal(discharged.timezone, 'America/Los_Angeles');
    const inland = c.transport_events[7]!;
    assert.equal(inland.timestamp, '2024-05-25T04:40:00.000Z');
    assert.equal(inland.location_locode, 'USCHI');
    assert.equal(inland.mode, 'rail');
    assert.equal(inland.timestamp_inferred_zone, true);
    assert.equal(c.pod_rail_loaded_at, '2024-05-21T05:05:00.000Z');
    assert.equal(c.pod_rail_departed_at, '2024-05-21T11:30:00.000Z');
    assert.equal(c.ind_ata_at, '2024-05-25T04:40:00.000Z');
    assert.equal(c.ind_eta_at, '2024-05-25T01:00:00.000Z'); // newest EST
    assert.equal(c.ind_rail_unloaded_at, '2024-05-25T08:15:00.000Z');
    assert.equal(c.pod_full_out_at, null);
    assert.equal(c.final_destination_full_out_at, '2024-05-27T15:30:00.000Z');
    assert.equal(c.current_status, 'empty_returned');
    assert.deepEqual(c.estimated_events, []);
    assert.equal(snap.shipment.port_of_discharge_locode, 'USLAX');
    assert.equal(snap.shipment.destination_locode, 'USCHI');
    assert.equal(snap.shipment.destination_eta_at, '2024-05-25T01:00:00.000Z');
    assert.equal(snap.shipment.destination_ata_at, '2024-05-25T04:40:00.000Z');
  });

  it('rail on-carriage in progress: status follows the box and the inland estimate is shown', () => {
    // Actuals up to a cut-off; plans and estimates are all known in advance.
    const until = (cutoff: string) =>
      loadFixture('rail').filter((e) => {
        const { eventClassifierCode, eventDateTime } = e as Record<string, string>;
        return eventClassifierCode !== 'ACT' || eventDateTime! < cutoff;
      });
    const events = until('2024-05-22');
    const snap = normalizeFixtureFrom(events);
    const c = snap.containers[0]!;
    assert.equal(names(c.transport_events).at(-1), 'rail_departed');
    assert.equal(c.current_status, 'on_rail');
    assert.deepEqual(
      c.estimated_events.map((e) => [e.event, e.location_locode, e.estimated_time]),
      [['container.transport.estimated.arrived_at_inland_destination', 'USCHI', '2024-05-25T01:00:00.000Z']],
    );
    const discharged = normalizeFixtureFrom(until('2024-05-20'));
    assert.equal(discharged.containers[0]!.current_status, 'awaiting_inland_transfer');
  });

  it('feeder and barge: short-sea feeder before the mother vessel, barge to Duisburg after it', () => {
    const snap = normalizeFixture('feeder', 'booking_number', 'SGNA41250900');
    const c = snap.containers[0]!;
    assert.deepEqual(names(c.transport_events), [
      'empty_out',
      'full_in',
      'feeder_loaded',
      'feeder_departed',
      'feeder_arrived',
      'feeder_discharged',
      'vessel_loaded',
      'vessel_departed',
      'vessel_arrived',
      'vessel_discharged',
      'feeder_loaded',
      'feeder_departed',
      'arrived_at_inland_destination',
      'feeder_arrived',
      'feeder_discharged',
      'full_out',
    ]);
    assert.deepEqual(
      c.transport_events.filter((e) => e.event.includes('feeder_')).map((e) => e.mode),
      ['vessel', 'vessel', 'vessel', 'vessel', 'barge', 'barge', 'barge', 'barge'],
    );
    assert.equal(snap.shipment.port_of_lading_locode, 'SGSIN');
    assert.equal(snap.shipment.port_of_discharge_locode, 'NLRTM');
    assert.equal(snap.shipment.destination_locode, 'DEDUI');
    assert.deepEqual(snap.shipment.transshipment_locodes, []);
    assert.deepEqual(snap.shipment.pod_vessel, { imo: '9806079', name: 'ONE Innovation' });
    assert.equal(snap.shipment.pol_etd_at, '2024-07-08T14:00:00.000Z');
    assert.equal(c.final_destination_full_out_at, '2024-08-08T05:45:00.000Z');
    assert.equal(c.ind_ata_at, '2024-08-06T16:30:00.000Z');
    assert.equal(c.current_status, 'picked_up');
    // Before the gate-out, the box sits at the inland terminal the barge brought it to.
    const beforeGateOut = loadFixture('feeder').filter(
      (e) =>
        (e as Record<string, unknown>).equipmentEventTypeCode !== 'GTOT' ||
        (e as Record<string, unknown>).emptyIndicatorCode !== 'LADEN',
    );
    assert.equal(
      normalizeFixtureFrom(beforeGateOut, {}, 'TGHU5555550').containers[0]!.current_status,
      'grounded',
    );
  });

  it('feeder threshold is configurable: a 46 h first leg is mainline when the limit is 24 h', () => {
    const snap = normalizeFixtureFrom(loadFixture('feeder'), { feederMaxTransitHours: 24 }, 'TGHU5555550');
    const c = snap.containers[0]!;
    assert.equal(snap.shipment.port_of_lading_locode, 'VNSGN');
    assert.deepEqual(snap.shipment.transshipment_locodes, ['SGSIN']);
    assert.deepEqual(names(c.transport_events).slice(2, 6), [
      'vessel_loaded',
      'vessel_departed',
      'transshipment_arrived',
      'transshipment_discharged',
    ]);
  });

  it('re-plan: rolled to another vessel, new transshipment and a changed POD', () => {
    const snap = normalizeFixture('replan', 'bill_of_lading', 'HLCUSHA2401XYZ9');
    const c = snap.containers[0]!;
    assert.deepEqual(names(c.transport_events), [
      'full_in',
      'vessel_loaded',
      'vessel_departed',
      'transshipment_arrived',
      'transshipment_discharged',
    ]);
    assert.ok(c.transport_events.slice(1).every((e) => e.vessel?.name === 'Al Jmeliyah'));
    assert.equal(c.current_status, 'on_ship');
    assert.equal(c.equipment_type, 'reefer');
    // Stale plan (Berlin Express to Rotterdam) is gone; the re-estimated Hamburg ETA wins.
    assert.deepEqual(c.estimated_events, [
      {
        key: 'estimated.vessel_arrived|DEHAM',
        event: 'container.transport.estimated.vessel_arrived',
        estimated_time: '2024-02-19T08:00:00.000Z',
        location_locode: 'DEHAM',
        timezone: 'Europe/Berlin',
        vessel: { imo: '9295268', name: 'Kiel Trader' },
        voyage_number: '07N',
      },
    ]);
    assert.equal(snap.shipment.port_of_lading_locode, 'CNYTN');
    assert.equal(snap.shipment.port_of_discharge_locode, 'DEHAM');
    assert.deepEqual(snap.shipment.transshipment_locodes, ['MAPTM']);
    assert.deepEqual(snap.shipment.pod_vessel, { imo: '9295268', name: 'Kiel Trader' });
    assert.equal(snap.shipment.pod_voyage_number, '07N');
    assert.deepEqual(snap.shipment.pod_terminal, { port_locode: 'DEHAM', smdg_code: 'CTB' });
    assert.equal(snap.shipment.pol_etd_at, '2024-01-17T12:00:00.000Z');
    assert.equal(snap.shipment.pod_eta_at, '2024-02-19T08:00:00.000Z');
  });

  it('re-plan before the box moves: the newest plan wins over the stale one', () => {
    // As known on 12 January: rolled from Berlin Express to Al Jmeliyah, nothing loaded yet.
    const known = loadFixture('replan').filter(
      (e) => (e as Record<string, string>).eventCreatedDateTime! < '2024-01-12',
    );
    const snap = normalizeFixtureFrom(known, {}, 'HLBU9000011');
    const c = snap.containers[0]!;
    assert.deepEqual(names(c.transport_events), ['full_in']);
    assert.equal(c.current_status, 'new');
    assert.deepEqual(
      c.estimated_events.map((e) => [
        e.event.replace('container.transport.', ''),
        e.location_locode,
        e.vessel?.name,
      ]),
      [
        ['estimated.vessel_departed', 'CNYTN', 'Al Jmeliyah'],
        ['estimated.vessel_arrived', 'DEHAM', 'Kiel Trader'],
      ],
    );
    assert.equal(snap.shipment.port_of_discharge_locode, 'DEHAM');
    assert.deepEqual(snap.shipment.transshipment_locodes, ['MAPTM']);
    assert.equal(snap.shipment.pol_etd_at, '2024-01-17T12:00:00.000Z');
    assert.equal(snap.shipment.pod_eta_at, '2024-02-18T06:00:00.000Z');
  });

  it('MSC-style quirks: eventId, carrierVoyageNumber, EQ references, flat eventTypeCode, corrections, junk', () => {
    const snap = normalizeFixture('msc-quirks', 'container', 'MSCU1234566');
    assert.equal(snap.containers.length, 1);
    const c = snap.containers[0]!;
    assert.deepEqual(names(c.transport_events), [
      'full_in',
      'vessel_loaded',
      'vessel_departed',
      'vessel_arrived',
      'vessel_discharged',
      'available',
      'full_out',
    ]);
    const [fullIn, loaded, departed, arrived, discharged, available, fullOut] = c.transport_events;
    // No offset at Kaohsiung: read in Asia/Taipei and flagged.
    assert.equal(fullIn!.timestamp, '2024-06-01T02:00:00.000Z');
    assert.equal(fullIn!.timestamp_inferred_zone, true);
    assert.equal(fullIn!.location_locode, 'TWKHH');
    // "Z" is taken at its word by default.
    assert.equal(loaded!.timestamp, '2024-06-02T08:00:00.000Z');
    assert.equal(loaded!.voyage_number, 'FE423E');
    assert.equal(loaded!.vessel?.imo, '9876543');
    assert.equal(departed!.timestamp, '2024-06-02T12:00:00.000Z');
    // The later-created correction replaces the first arrival message.
    assert.equal(arrived!.timestamp, '2024-06-16T16:30:00.000Z');
    assert.deepEqual(arrived!.source_event_ids, ['msc-000105']);
    assert.deepEqual(arrived!.terminal, { port_locode: 'USLGB', smdg_code: 'PCT' });
    assert.equal(discharged!.timestamp, '2024-06-17T10:00:00.000Z');
    assert.equal(available!.location_locode, 'USLGB');
    // No location at all: UTC, flagged, null place.
    assert.equal(fullOut!.location_locode, null);
    assert.equal(fullOut!.timezone, null);
    assert.equal(fullOut!.timestamp_inferred_zone, true);
    assert.equal(c.seal_number, 'MSC0099812');
    assert.equal(c.iso_equipment_code, '45G1');
    assert.equal(c.current_status, 'picked_up');
    assert.equal(c.pod_full_out_at, '2024-06-20T13:00:00.000Z');
    assert.equal(snap.parsed_event_count, 9);
    assert.equal(snap.skipped_event_count, 4);
  });

  it('a `Z` that means local time can be switched to local reading per carrier', () => {
    const snap = normalizeFixtureFrom(loadFixture('msc-quirks'), { zuluIsLocal: true }, 'MSCU1234566');
    const loaded = snap.containers[0]!.transport_events[1]!;
    assert.equal(loaded.timestamp, '2024-06-02T00:00:00.000Z'); // 08:00 in Asia/Taipei
    assert.equal(loaded.timestamp_inferred_zone, true);
  });
});

import { zoneOfLocode } from '../../src/reference/data.ts';

function normalizeFixtureFrom(
  events: unknown[],
  extra: { feederMaxTransitHours?: number; zuluIsLocal?: boolean } = {},
  number = 'MSKU7000013',
) {
  return normalizeDcsa(events, { numberType: 'container', number, zoneOf: zoneOfLocode, ...extra });
}
