import type { TransportEventName } from '../engine/types.ts';
import { portByLocode, terminalsAtPort } from '../reference/data.ts';

// What the bulk seeder (seed.ts) generates: the places, lines, customers, equipment and vessel
// names it draws from, and the journey template every container follows. Pure data; the SQL
// that expands it into rows is seed-batch.ts.

export const HUBS = [
  'SGSIN',
  'MYTPP',
  'MYPKG',
  'LKCMB',
  'INNSA',
  'OMSLL',
  'AEJEA',
  'EGPSD',
  'GRPIR',
  'MAPTM',
];
export const HUBS_MORE = ['ESALG', 'PAMIT'];
export const ORIGINS = ['CNNBO', 'CNYTN', 'CNQIN', 'KRPUS', 'HKHKG', 'TWKHH', 'VNSGN', 'THLCH'];
export const DESTINATIONS = [
  'NLRTM',
  'DEHAM',
  'BEANR',
  'GBFXT',
  'FRLEH',
  'ESVLC',
  'ITGOA',
  'PLGDN',
  'USNYC',
  'USSAV',
];
export const CUSTOMERS = [
  'Northwind Traders',
  'Contoso Retail',
  'Fabrikam Home',
  'Tailspin Toys',
  'Wide World Importers',
  'Adventure Works',
  'Lucerne Outdoor',
  'Proseware Electronics',
  'Woodgrove Furniture',
  'Alpine Ski House',
];
export const EQUIPMENT = [
  ['dry', 40, 'high_cube', '45G1'],
  ['dry', 20, 'standard', '22G1'],
  ['dry', 40, 'standard', '42G1'],
  ['dry', 40, 'high_cube', '45G1'],
  ['reefer', 40, 'high_cube', '45R1'],
] as const;
export const VESSEL_WORDS = [
  ['CORAL', 'NORDIC', 'JADE', 'AMBER', 'SILVER', 'OCEAN', 'PACIFIC', 'ATLANTIC'],
  ['HORIZON', 'SPIRIT', 'PIONEER', 'GRACE', 'FORTUNE'],
];

/** Transport events of a journey with this many transshipment hubs, in time order. */
export interface Step {
  name: TransportEventName;
  place: 'pol' | 'hub' | 'pod';
  hub: number;
  /** Hours after the POL departure, plus `legs` sea legs of the shipment's leg length. */
  hours: number;
  legs: number;
  /** Sea leg whose vessel the event names, or -1. */
  vleg: number;
  /** Gate events are an hour apart per container. */
  perContainer: boolean;
  terminal: boolean;
}

export const P = 'container.transport.';
const step = (
  name: string,
  place: Step['place'],
  hours: number,
  legs: number,
  vleg: number,
  hub = 0,
  perContainer = false,
  terminal = true,
): Step => ({
  name: `${P}${name}` as TransportEventName,
  place,
  hub,
  hours,
  legs,
  vleg,
  perContainer,
  terminal,
});

export const MAX_HUBS = HUBS.length + HUBS_MORE.length;
export const MAX_EVENTS_PER_CONTAINER = 11 + 4 * MAX_HUBS;

export function journeyTemplate(hubs: number): Step[] {
  const steps = [
    step('empty_out', 'pol', -120, 0, -1, 0, true, false),
    step('full_in', 'pol', -72, 0, -1, 0, true),
    step('vessel_loaded', 'pol', -10, 0, 0),
    step('vessel_departed', 'pol', 0, 0, 0),
  ];
  for (let j = 1; j <= hubs; j++) {
    const dwell = (j - 1) * 48;
    steps.push(
      step('transshipment_arrived', 'hub', dwell, j, j - 1, j),
      step('transshipment_discharged', 'hub', dwell + 8, j, j - 1, j),
      step('transshipment_loaded', 'hub', dwell + 40, j, j, j),
      step('transshipment_departed', 'hub', dwell + 48, j, j, j),
    );
  }
  const at = hubs * 48;
  const legs = hubs + 1;
  steps.push(
    step('vessel_arrived', 'pod', at, legs, hubs),
    step('vessel_berthed', 'pod', at + 4, legs, hubs),
    step('vessel_discharged', 'pod', at + 16, legs, hubs),
    step('available', 'pod', at + 30, legs, -1),
    step('full_out', 'pod', at + 70, legs, -1, 0, true),
    step('delivered', 'pod', at + 90, legs, -1, 0, true, false),
    step('empty_in', 'pod', at + 190, legs, -1, 0, true, false),
  );
  return steps;
}

/** Transshipment hubs needed for `events` events per container. */
export const hubsFor = (events: number) => Math.min(MAX_HUBS, Math.max(0, Math.ceil((events - 11) / 4)));

/** IMO number: six digits and a check digit. */
export function imo(first6: number): string {
  const d = String(first6).split('').map(Number);
  return `${first6}${d.reduce((s, x, i) => s + x * (7 - i), 0) % 10}`;
}

/** Sum of the ISO 6346 weights of a 4-letter owner code (positions 0..3). */
export function ownerWeight(prefix: string): number {
  let sum = 0;
  for (let i = 0; i < 4; i++) {
    let v = 10;
    for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
      if (v % 11 === 0) v++;
      if (ch === prefix[i]) break;
      v++;
    }
    sum += v * 2 ** i;
  }
  return sum;
}

export function portsInfo(locodes: string[]) {
  const known = locodes.filter((l) => portByLocode(l));
  return {
    locodes: known,
    zones: known.map((l) => portByLocode(l)!.time_zone ?? 'UTC'),
    terminals: known.map((l) => terminalsAtPort(l).find((t) => t.smdg_code)?.id ?? null),
  };
}
