import { call, equipment, shipment, transport } from '../engine/builders.ts';

// The carrier's side of the seeded shipment: what Hapag-Lloyd's DCSA T&T 2.2 API answers for one
// bill of lading, Yantian (CNYTN, YICT) -> Rotterdam (NLRTM, ECT Delta DDE) on the Rotterdam
// Express, voyage 412W, with a truck leg on to Duisburg (DEDUI). Two answers: one a few days
// after departure, one after the first container came back empty. seed.ts feeds both to the
// engine, so what the API then reads is what the engine makes of them.

export const VESSEL = { imo: '9501368', name: 'Rotterdam Express' };

const vessel = { imo: VESSEL.imo, vessel: VESSEL.name, exp: '412W' };
// Facility names travel in the payload (the raw events list shows them).
const polCall = {
  ...call('CNYTN', { ...vessel, facility: 'YICT' }),
  location: { locationName: 'Yantian International Container Terminal' },
};
const podCall = { ...call('NLRTM', { ...vessel, facility: 'DDE' }), location: { locationName: 'ECT Delta' } };
// Its own sequence number: the berth is a second arrival, not a correction of the first.
const podBerth = { ...podCall, facilityTypeCode: 'BRTH', transportCallSequenceNumber: 2 };
const inland = call('DEDUI', { mode: 'TRUCK', id: 'DEDUI-TRUCK' });

/** Document references tie each event to the bill of lading, as carriers send them. */
function ofBill<T extends Record<string, unknown>>(number: string, event: T, id: string): T {
  return {
    ...event,
    eventID: id,
    documentReferences: [{ documentReferenceType: 'TRD', documentReferenceValue: number }],
  };
}

/**
 * Both answers: `first` (2024-03-10) and `second` (2024-04-16, a superset of the first). Every
 * container is picked up at Rotterdam; the first of several is also returned empty.
 */
export function carrierAnswers(number: string, containers: readonly string[]) {
  const first = containers[0];
  const ev = (suffix: string, e: Record<string, unknown>) => ofBill(number, e, `${number}-${suffix}`);
  const eachBox = (suffix: string, make: (container: string, i: number) => Record<string, unknown>) =>
    containers.map((c, i) => ev(`${suffix}-${i + 1}`, make(c, i)));
  const iso = (i: number) => (i === 0 ? '45G1' : '42U1');
  const early = [
    ev('conf', shipment('CONF', 'BKG', '2024-02-20T09:12:00+08:00', number)),
    ...eachBox('gtot-empty', (container, i) =>
      equipment('GTOT', {
        container,
        empty: 'EMPTY',
        iso: iso(i),
        at: '2024-03-01T09:00:00+08:00',
        location: { locationName: 'Yantian Empty Depot', UNLocationCode: 'CNYTN' },
      }),
    ),
    ...eachBox('gtin', (container) =>
      equipment('GTIN', { container, at: '2024-03-04T14:00:00+08:00', call: polCall }),
    ),
    ...eachBox('load', (container, i) =>
      equipment('LOAD', {
        container,
        iso: iso(i),
        seal: i === 0 ? 'HL4471223' : undefined,
        at: i === 0 ? '2024-03-06T22:10:00+08:00' : '2024-03-06T22:20:00+08:00',
        call: polCall,
      }),
    ),
    ev(
      'etd',
      transport('DEPA', polCall, {
        cls: 'EST',
        at: '2024-03-06T18:00:00+08:00',
        created: '2024-02-20T09:12:00+08:00',
      }),
    ),
    ev('atd', transport('DEPA', polCall, { at: '2024-03-07T10:00:00+08:00' })),
    // The planned discharge names the port of discharge before the vessel gets there.
    ...eachBox('disc-plan', (container) =>
      equipment('DISC', { container, cls: 'PLN', at: '2024-04-06T22:00:00+02:00', call: podCall }),
    ),
    ev(
      'eta-1',
      transport('ARRI', podCall, {
        cls: 'EST',
        at: '2024-04-06T08:00:00+02:00',
        created: '2024-03-07T10:00:00+08:00',
      }),
    ),
    ev(
      'inland-eta',
      transport('ARRI', inland, {
        cls: 'EST',
        at: '2024-04-12T08:00:00+02:00',
        created: '2024-03-07T10:00:00+08:00',
      }),
    ),
  ];
  const late = [
    // A later estimate of the same arrival: the current ETA; the first stays the original one.
    ev(
      'eta-2',
      transport('ARRI', podCall, {
        cls: 'EST',
        at: '2024-04-08T08:00:00+02:00',
        created: '2024-04-01T08:00:00+02:00',
      }),
    ),
    ev('ata', transport('ARRI', podCall, { at: '2024-04-08T08:00:00+02:00' })),
    ev('berth', transport('ARRI', podBerth, { at: '2024-04-08T08:00:00+02:00' })),
    ...eachBox('disc', (container) =>
      equipment('DISC', { container, at: '2024-04-08T22:00:00+02:00', call: podCall }),
    ),
    ...eachBox('avpu', (container) =>
      equipment('AVPU', {
        container,
        at: '2024-04-09T10:00:00+02:00',
        location: { UNLocationCode: 'NLRTM' },
      }),
    ),
    ...eachBox('gtot', (container) =>
      equipment('GTOT', {
        container,
        at: '2024-04-10T11:00:00+02:00',
        location: { UNLocationCode: 'NLRTM' },
      }),
    ),
    // The first container is back empty; not a lone one, or the engine would stop tracking (all
    // containers terminated) and the shipment would not be an active one.
    ...(containers.length > 1
      ? [
          ev(
            'gtin-empty',
            equipment('GTIN', {
              container: first,
              empty: 'EMPTY',
              at: '2024-04-15T14:30:00+02:00',
              location: { UNLocationCode: 'NLRTM' },
            }),
          ),
        ]
      : []),
  ];
  return { first: early, second: [...early, ...late] };
}
