import { containerNumber } from '../src/util/iso6346.ts';
import { type ContainerInfo, EventBuilder, type SimEvent } from './events.ts';
import { hashInt, pick } from './hash.ts';
import { emitTimeline, type LegSpec, planRoute, type RouteSpec, type Timeline } from './itinerary.ts';
import { BARGES, facility, MAINLINE_VESSELS, type Place, terminal } from './places.ts';
import { DAY, HOUR } from './time.ts';

// The journeys behind each scenario: real ports and SMDG terminals, fictional vessels. Each
// journey is anchored on the simulator epoch so that, at the epoch, it sits at a known stage.

export type JourneyKind =
  | 'direct'
  | 'transshipment'
  | 'barge'
  | 'rail'
  | 'eta'
  | 'roll'
  | 'empty'
  | 'late'
  | 'cancelled'
  | 'flaky'
  | 'booking'
  | 'haulage'
  | 'reassign'
  | 'terminal'
  | 'terminal-reassign'
  | 'demo';

export interface JourneyContext {
  /** Seed for everything invented: reference kind plus number ("bl:SIMTS1"). */
  id: string;
  billOfLading: string;
  booking: string;
  epochMs: number;
  containerCount: number;
  /** Container #0's number when the number pattern fixes it (SIMU container rule). */
  firstContainer?: string;
}

export interface Journey {
  containers: ContainerInfo[];
  events: SimEvent[];
}

let placesCache: ReturnType<typeof loadPlaces> | undefined;
function loadPlaces() {
  return {
    ningbo: terminal('CNNBO', 'BLCT2'),
    shanghai: terminal('CNSGH', 'SGICT'),
    tanjungPelepas: terminal('MYTPP', 'PTP'),
    hongKong: terminal('HKHKG', 'CHTHK'),
    singapore: terminal('SGSIN', 'PSAPPT'),
    colombo: terminal('LKCMB', 'CICT'),
    busan: terminal('KRPUS', 'BNCT'),
    hamburg: terminal('DEHAM', 'CTA'),
    rotterdamRwg: terminal('NLRTM', 'RWG'),
    rotterdamDelta: terminal('NLRTM', 'DDE'),
    moerdijk: terminal('NLMOE', 'MCT'),
    losAngeles: terminal('USLAX', 'APMT'),
    longBeach: terminal('USLGB', 'LBCT'),
    longBeachIts: terminal('USLGB', 'ITS'),
    chicagoRamp: facility('USCHI', 'RAMP', 'Chicago Logistics Park rail ramp'),
    depot: (locode: string, name: string): Place => facility(locode, 'DEPO', name),
  };
}
const places = () => (placesCache ??= loadPlaces());

const ISO_CODES = ['45G1', '22GP', '42G1', '45R1', '22G1'];
const OWNERS = ['TGHU', 'TCLU', 'CAIU', 'SEGU', 'FCIU', 'TRHU', 'BMOU'];

function makeContainers(ctx: JourneyContext): ContainerInfo[] {
  return Array.from({ length: ctx.containerCount }, (_, i) => ({
    number:
      i === 0 && ctx.firstContainer
        ? ctx.firstContainer
        : containerNumber(pick(`${ctx.id}:owner:${i}`, OWNERS), hashInt(`${ctx.id}:serial:${i}`, 1_000_000)),
    isoCode: pick(`${ctx.id}:iso:${i}`, ISO_CODES),
    seal: `SIM${String(hashInt(`${ctx.id}:seal:${i}`, 10_000_000)).padStart(7, '0')}`,
  }));
}

/** Vessel, service and voyage for leg `n` of a journey: two legs never share a vessel. */
function ship(ctx: JourneyContext, n: number, service: string, bound: string) {
  const first = hashInt(`${ctx.id}:vessel`, MAINLINE_VESSELS.length);
  return {
    vessel: MAINLINE_VESSELS[(first + n) % MAINLINE_VESSELS.length]!,
    service,
    voyage: `${100 + hashInt(`${ctx.id}:voyage:${n}`, 900)}${bound}`,
  };
}

function asiaEurope(ctx: JourneyContext): RouteSpec {
  const p = places();
  return {
    emptyDepot: p.depot('CNNBO', 'Ningbo Beilun empty depot'),
    legs: [
      {
        mode: 'VESSEL',
        from: p.ningbo,
        via: [p.tanjungPelepas],
        to: p.hamburg,
        transitDays: 30,
        ...ship(ctx, 0, 'AE1', 'W'),
      },
    ],
    returnDepot: p.depot('DEHAM', 'Hamburg Waltershof empty depot'),
  };
}

function transpacific(ctx: JourneyContext): RouteSpec {
  const p = places();
  return {
    emptyDepot: p.depot('CNSGH', 'Shanghai Waigaoqiao empty depot'),
    legs: [
      {
        mode: 'VESSEL',
        from: p.shanghai,
        via: [p.busan],
        to: p.longBeach,
        transitDays: 15,
        ...ship(ctx, 0, 'TP6', 'E'),
      },
    ],
    returnDepot: p.depot('USLGB', 'Long Beach empty depot'),
    podDwellDays: 10,
  };
}

const ROUTES: Record<Exclude<JourneyKind, 'cancelled'>, (ctx: JourneyContext) => RouteSpec> = {
  direct: asiaEurope,
  // Carrier haulage: the line trucks the box to the consignee (DROP at a customer location, CLOC).
  haulage: (ctx) => ({
    ...asiaEurope(ctx),
    deliverTo: facility('DEHAM', 'CLOC', 'Consignee warehouse, Hamburg-Billbrook'),
  }),
  // The POD terminal is reassigned from CTA to Burchardkai a week before arrival.
  reassign: (ctx) => ({ ...asiaEurope(ctx), reassignPodTo: terminal('DEHAM', 'CTB') }),
  // Terminal-data scenarios (terminal-feed.ts): a transpacific box that waits ten days at the
  // POD terminal, time for holds, fees, last free days and appointments to change.
  terminal: (ctx) => transpacific(ctx),
  'terminal-reassign': (ctx) => ({ ...transpacific(ctx), reassignPodTo: terminal('USLGB', 'ITS') }),
  late: asiaEurope,
  flaky: asiaEurope,
  transshipment: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNSGH', 'Shanghai Waigaoqiao empty depot'),
      legs: [
        {
          mode: 'VESSEL',
          from: p.shanghai,
          via: [p.hongKong],
          to: p.singapore,
          transitDays: 6,
          ...ship(ctx, 0, 'AS2', 'S'),
        },
        {
          mode: 'VESSEL',
          from: p.singapore,
          via: [p.colombo],
          to: p.rotterdamRwg,
          transitDays: 24,
          dwellDays: 3,
          ...ship(ctx, 1, 'AE3', 'W'),
        },
      ],
      returnDepot: p.depot('NLRTM', 'Rotterdam Waalhaven empty depot'),
    };
  },
  barge: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNNBO', 'Ningbo Beilun empty depot'),
      legs: [
        {
          mode: 'VESSEL',
          from: p.ningbo,
          via: [p.tanjungPelepas],
          to: p.rotterdamDelta,
          transitDays: 29,
          ...ship(ctx, 0, 'AE5', 'W'),
        },
        {
          mode: 'BARGE',
          from: p.rotterdamDelta,
          to: p.moerdijk,
          transitDays: 0.5,
          dwellDays: 2,
          vessel: pick(`${ctx.id}:barge`, BARGES),
          service: 'RMB',
          voyage: `B${100 + hashInt(`${ctx.id}:barge-voyage`, 900)}`,
        },
      ],
      returnDepot: p.depot('NLMOE', 'Moerdijk empty depot'),
    };
  },
  rail: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNSGH', 'Shanghai Waigaoqiao empty depot'),
      legs: [
        {
          mode: 'VESSEL',
          from: p.shanghai,
          via: [p.busan],
          to: p.losAngeles,
          transitDays: 14,
          ...ship(ctx, 0, 'TP9', 'E'),
        },
        { mode: 'RAIL', from: p.losAngeles, to: p.chicagoRamp, transitDays: 4, dwellDays: 2 },
      ],
      returnDepot: p.depot('USCHI', 'Chicago empty depot'),
    };
  },
  eta: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNSGH', 'Shanghai Waigaoqiao empty depot'),
      legs: [
        {
          mode: 'VESSEL',
          from: p.shanghai,
          via: [p.busan],
          to: p.longBeach,
          transitDays: 15,
          delayedArrival: true,
          ...ship(ctx, 0, 'TP2', 'E'),
        },
      ],
      returnDepot: p.depot('USLGB', 'Long Beach empty depot'),
    };
  },
  roll: (ctx) => {
    const p = places();
    const original: LegSpec = { ...asiaEurope(ctx).legs[0]! };
    return {
      emptyDepot: p.depot('CNNBO', 'Ningbo Beilun empty depot'),
      rolledFrom: [original],
      legs: [
        {
          mode: 'VESSEL',
          from: p.ningbo,
          via: [p.tanjungPelepas],
          to: p.rotterdamRwg,
          transitDays: 28,
          dwellDays: 8.5,
          ...ship(ctx, 1, 'AE5', 'W'),
        },
      ],
      returnDepot: p.depot('NLRTM', 'Rotterdam Waalhaven empty depot'),
    };
  },
  empty: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNNBO', 'Ningbo Beilun empty depot'),
      legs: [
        { mode: 'VESSEL', from: p.ningbo, to: p.singapore, transitDays: 6, ...ship(ctx, 0, 'CS1', 'S') },
      ],
      returnDepot: p.depot('SGSIN', 'Singapore Pasir Panjang empty depot'),
    };
  },
  booking: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNSGH', 'Shanghai Waigaoqiao empty depot'),
      legs: [
        {
          mode: 'VESSEL',
          from: p.shanghai,
          via: [p.singapore],
          to: p.rotterdamDelta,
          transitDays: 31,
          ...ship(ctx, 0, 'AE7', 'W'),
        },
      ],
      returnDepot: p.depot('NLRTM', 'Rotterdam Waalhaven empty depot'),
      pickupAfterHours: 60,
      planAtPickup: true,
    };
  },
  demo: (ctx) => {
    const p = places();
    return {
      emptyDepot: p.depot('CNSGH', 'Shanghai Waigaoqiao empty depot'),
      legs: [
        {
          mode: 'VESSEL',
          from: p.shanghai,
          to: p.longBeachIts,
          transitDays: 14,
          ...ship(ctx, 0, 'TP9', 'E'),
        },
      ],
      returnDepot: p.depot('USLGB', 'Long Beach empty depot'),
    };
  },
};

// Where each journey stands at the epoch. Default: booked 1.5-2 days ago, the empty box picked
// up, gate-in at the port of loading a few hours away, departure about two days away.
const ANCHORS: Partial<Record<JourneyKind, (ctx: JourneyContext, t: Timeline) => number>> = {
  empty: (ctx, t) => ctx.epochMs + DAY - t.endMs, // empty return one day after the epoch
  // Delivered before the epoch, the first empty return a day after it: the demo shows a whole
  // voyage and stays `created` (tracking goes on until the empty boxes are back), whatever the
  // time of day (anchoring the last return instead made the first one visible after 17:00 UTC).
  demo: (ctx, t) => ctx.epochMs + DAY - t.firstEmptyReturnMs,
  booking: (ctx) => ctx.epochMs - 2 * HOUR, // booked just now; the box is assigned ~2.5 days later
};

/** Days after the epoch before a manifest-delayed (SIMLATE) journey becomes visible. */
export const LATE_VISIBLE_AFTER_DAYS = 3;

export function buildJourney(kind: JourneyKind, ctx: JourneyContext): Journey {
  const containers = kind === 'cancelled' ? [] : makeContainers(ctx);
  const defaultAnchor = ctx.epochMs - 36 * HOUR - hashInt(`${ctx.id}:anchor`, 12 * 60) * 60_000;
  if (kind === 'cancelled') {
    const b = new EventBuilder({
      seed: ctx.id,
      billOfLading: ctx.billOfLading,
      booking: ctx.booking,
      containers,
    });
    const anchor = ctx.epochMs - 2 * DAY;
    const reason = 'Booking cancelled by shipper';
    b.shipment('CONF', 'BKG', anchor);
    // v2.2 has no code for a cancellation; carriers send codes outside the enum, such as CANC.
    b.shipment('CANC', 'BKG', anchor + 20 * HOUR, reason);
    b.shipment('CANC', 'TRD', anchor + 20 * HOUR, reason);
    return { containers, events: b.finish() };
  }
  const route = ROUTES[kind](ctx);
  const timeline = planRoute(route, ctx.id, containers.length);
  const anchor = Math.round((ANCHORS[kind]?.(ctx, timeline) ?? defaultAnchor) / 60_000) * 60_000;
  const b = new EventBuilder({
    seed: ctx.id,
    billOfLading: ctx.billOfLading,
    booking: ctx.booking,
    containers,
    equipmentKnownFromMs: anchor + timeline.pickupMs,
    ...(kind === 'late' ? { notBeforeMs: ctx.epochMs + LATE_VISIBLE_AFTER_DAYS * DAY } : {}),
  });
  emitTimeline(b, timeline, anchor, containers);
  return { containers, events: b.finish() };
}
