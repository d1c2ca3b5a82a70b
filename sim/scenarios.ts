import { checkDigit, isValidContainerNumber } from '../src/util/iso6346.ts';
import type { ContainerInfo, DcsaEvent, SimEvent } from './events.ts';
import { buildJourney, type JourneyKind } from './journeys.ts';
import { matchesReference, type ReferenceKind } from './match.ts';
import type { NumberType, ScenarioDef, ScenarioInfo } from './scenario-def.ts';
import type { TerminalScript } from './terminal-feed.ts';
import { TERMINAL_SCENARIOS } from './terminal-scenarios.ts';

// The scenario library: which story a tracking number tells, and which DCSA events of that story
// are visible at a simulated instant. Pure apart from two bounded caches: built journeys (so a
// benchmark's repeated polls cost a lookup) and the container -> shipment index that lets any
// container of a simulated B/L be looked up on its own.

export type { DcsaEvent, SimEvent } from './events.ts';
export type { ReferenceKind } from './match.ts';
export type { NumberType, ScenarioDef, ScenarioInfo } from './scenario-def.ts';

const ALL: NumberType[] = ['bill_of_lading', 'booking_number', 'container'];
const DOCS: NumberType[] = ['bill_of_lading', 'booking_number'];

// Order matters: the first matching prefix wins.
const SCENARIOS: ScenarioDef[] = [
  {
    pattern: 'SIMBL1C',
    journey: 'direct',
    containers: 1,
    containerDigit: 1,
    numberTypes: ALL,
    summary:
      'Direct CNNBO -> DEHAM with an on-board call at MYTPP, one container (SIMBLnC: n = 1-9 containers)',
    examples: { bill_of_lading: 'SIMBL1C0001', booking_number: 'BKGBL1C0001', container: 'SIMU1000007' },
  },
  {
    pattern: 'SIMBL3C',
    journey: 'direct',
    containers: 3,
    numberTypes: DOCS,
    summary: 'Same route, three containers sharing the transport events',
    examples: { bill_of_lading: 'SIMBL3C0001', booking_number: 'BKGBL3C0001' },
  },
  {
    pattern: 'SIMTS',
    journey: 'transshipment',
    containers: 1,
    containerDigit: 2,
    numberTypes: ALL,
    summary:
      'CNSGH -> (HKHKG on board) -> SGSIN transshipment onto a second vessel -> (LKCMB on board) -> NLRTM',
    examples: { bill_of_lading: 'SIMTS0001', booking_number: 'BKGTS0001', container: 'SIMU2000001' },
  },
  {
    pattern: 'SIMFDR',
    journey: 'barge',
    containers: 1,
    containerDigit: 3,
    numberTypes: ALL,
    summary:
      'CNNBO -> NLRTM by vessel, then a BARGE feeder leg NLRTM -> NLMOE; full out and empty return at Moerdijk',
    examples: { bill_of_lading: 'SIMFDR0001', booking_number: 'BKGFDR0001', container: 'SIMU3000006' },
  },
  {
    pattern: 'SIMRAIL',
    journey: 'rail',
    containers: 1,
    containerDigit: 4,
    numberTypes: ALL,
    summary:
      'CNSGH -> (KRPUS on board) -> USLAX, then RAIL to the USCHI ramp (load, depart, arrive, unload), full out at the ramp',
    examples: { bill_of_lading: 'SIMRAIL0001', booking_number: 'BKGRAIL0001', container: 'SIMU4000000' },
  },
  {
    pattern: 'SIMETA',
    journey: 'eta',
    containers: 1,
    containerDigit: 5,
    numberTypes: ALL,
    summary: 'CNSGH -> USLGB; the arrival slips two days, announced by several EST revisions (new eventIDs)',
    examples: { bill_of_lading: 'SIMETA0001', booking_number: 'BKGETA0001', container: 'SIMU5000005' },
  },
  {
    pattern: 'SIMROLL',
    journey: 'roll',
    containers: 1,
    containerDigit: 6,
    numberTypes: ALL,
    summary:
      'Planned CNNBO -> DEHAM; rolled 12 h before sailing to another vessel/voyage a week later, POD changed to NLRTM',
    examples: { bill_of_lading: 'SIMROLL0001', booking_number: 'BKGROLL0001', container: 'SIMU6000000' },
  },
  {
    pattern: 'SIMEMPTY',
    journey: 'empty',
    containers: 1,
    containerDigit: 7,
    numberTypes: ALL,
    summary:
      'Short CNNBO -> SGSIN journey, already out full at the epoch; empty return (GTIN EMPTY) one sim day later',
    examples: { bill_of_lading: 'SIMEMPTY0001', booking_number: 'BKGEMPTY0001', container: 'SIMU7000004' },
  },
  {
    pattern: 'SIMLATE',
    journey: 'late',
    containers: 1,
    containerDigit: 8,
    numberTypes: ALL,
    summary:
      'Not found until 3 sim days after the epoch (manifest delay), then the direct journey with back-filled events',
    examples: { bill_of_lading: 'SIMLATE0001', booking_number: 'BKGLATE0001', container: 'SIMU8000009' },
  },
  {
    pattern: 'SIMNONE',
    journey: 'none',
    containers: 0,
    containerDigit: 0,
    numberTypes: ALL,
    summary: 'Never found',
    examples: { bill_of_lading: 'SIMNONE0001', booking_number: 'SIMNONE0001', container: 'SIMU0000002' },
  },
  {
    pattern: 'SIMCANC',
    journey: 'cancelled',
    containers: 0,
    numberTypes: DOCS,
    summary:
      'Cancelled booking: SHIPMENT CONF, then SHIPMENT CANC (a code outside the 2.2 enum) for BKG and TRD; no transport data',
    examples: { bill_of_lading: 'SIMCANC0001', booking_number: 'BKGCANC0001' },
  },
  {
    pattern: 'SIMFLAKY',
    journey: 'flaky',
    containers: 1,
    containerDigit: 9,
    flaky: true,
    numberTypes: ALL,
    summary:
      'Direct journey behind a flaky API: by request count, hang, 503, 429 + Retry-After, malformed JSON, 500, then 3 answers, repeating',
    examples: { bill_of_lading: 'SIMFLAKY0001', booking_number: 'BKGFLAKY0001', container: 'SIMU9000003' },
  },
  {
    pattern: 'SIMHAUL',
    journey: 'haulage',
    containers: 1,
    numberTypes: DOCS,
    summary:
      'Direct CNNBO -> DEHAM with carrier haulage: after the full out the box is delivered (DROP) at the consignee',
    examples: { bill_of_lading: 'SIMHAUL0001', booking_number: 'BKGHAUL0001' },
  },
  {
    pattern: 'SIMTERM',
    journey: 'reassign',
    containers: 1,
    numberTypes: DOCS,
    summary:
      'Direct CNNBO -> DEHAM; a week before arrival the POD call moves from CTA to CTB (terminal reassigned)',
    examples: { bill_of_lading: 'SIMTERM0001', booking_number: 'BKGTERM0001' },
  },
  {
    pattern: 'SIMBKG',
    journey: 'booking',
    containers: 2,
    numberTypes: DOCS,
    summary:
      'Booking first: only SHIPMENT CONF/BKG until ~2.5 sim days after the epoch, then two containers and the plan appear',
    examples: { booking_number: 'SIMBKG0001', bill_of_lading: 'BOLBKG0001' },
  },
  ...TERMINAL_SCENARIOS,
];

const TEST_SUCCEEDED = 'TEST-TR-SUCCEEDED';
const TEST_FAILED = 'TEST-TR-FAILED';
/** The published test numbers: taken for every number type, containers too (not ISO 6346). */
export const TEST_NUMBERS: readonly string[] = [TEST_SUCCEEDED, TEST_FAILED];
const TEST_SCENARIOS: ScenarioInfo[] = [
  {
    pattern: TEST_SUCCEEDED,
    numberTypes: ALL,
    // The test numbers are their own B/L and booking; as a container, the journey's first box.
    examples: { bill_of_lading: TEST_SUCCEEDED, booking_number: TEST_SUCCEEDED, container: TEST_SUCCEEDED },
    summary:
      'Found: a CNSGH -> USLGB journey with two containers, delivered, empty return a day after the epoch (for a container lookup: the first)',
  },
  {
    pattern: TEST_FAILED,
    numberTypes: ALL,
    examples: { bill_of_lading: TEST_FAILED, booking_number: TEST_FAILED, container: TEST_FAILED },
    summary: 'Failure: the sandbox answers permanent_failure not_found; the HTTP simulator answers 400',
  },
];

export function scenarioTable(): ScenarioInfo[] {
  return [...SCENARIOS, ...TEST_SCENARIOS].map(({ pattern, summary, numberTypes, examples }) => ({
    pattern,
    summary,
    numberTypes,
    examples,
  }));
}

export interface Shipment {
  /** Reference kind plus the number it was created from, e.g. "bl:SIMTS1". Seeds every id. */
  id: string;
  scenario: string;
  billOfLading: string;
  booking: string;
  containers: ContainerInfo[];
  flaky: boolean;
  cancelled: boolean;
  terminalScript?: TerminalScript;
  /** Every event of the journey, in publication order (eventCreatedDateTime). */
  events: SimEvent[];
}

function scenarioOf(key: string): ScenarioDef | undefined {
  const many = /^SIMBL([1-9])C/.exec(key);
  if (many) return { ...SCENARIOS[0]!, pattern: `SIMBL${many[1]}C`, containers: Number(many[1]) };
  return SCENARIOS.find((s) => key.startsWith(s.pattern));
}

// B/L-first numbers (SIM...) get booking BKG...; booking-first numbers (SIM...) get B/L BOL...
// The mapping is reversible, so any reference of a simulated shipment resolves without state.
const bookingOf = (blKey: string) => `BKG${blKey.slice(3)}`;
const billOfLadingOf = (bookingKey: string) => `BOL${bookingKey.slice(3)}`;

// A cached journey is ~60 KB (with its JSON); evicted ones are rebuilt on demand. Index entries
// are tiny and outlive their journeys, so containers stay resolvable after eviction.
const MAX_SHIPMENTS = 10_000;
const MAX_CONTAINERS = 500_000;
let maxShipments = MAX_SHIPMENTS;
const shipments = new Map<string, Shipment>();
const containerIndex = new Map<string, { kind: 'bl' | 'bkg'; key: string }>();

/**
 * Keeps at most `max` built journeys from now on (never more than the default): for a process
 * that has less memory to give them than the simulator program (the sandbox carrier inside the
 * service, src/carriers/sandbox.ts). Journeys are rebuilt the same on demand; the container index
 * is kept whole, so every container number still resolves.
 */
export function limitJourneyCache(max: number): void {
  maxShipments = Math.min(maxShipments, Math.max(1, max));
  while (shipments.size > maxShipments) shipments.delete(shipments.keys().next().value as string);
}

function remember<K, V>(map: Map<K, V>, max: number, key: K, value: V): void {
  if (map.size >= max) map.delete(map.keys().next().value as K);
  map.set(key, value);
}

function shipmentFor(kind: 'bl' | 'bkg', key: string, epochMs: number): Shipment | undefined {
  const cacheKey = `${kind}:${key}@${epochMs}`;
  const cached = shipments.get(cacheKey);
  if (cached) return cached;
  const demo = key === TEST_SUCCEEDED;
  const def = demo ? undefined : scenarioOf(key);
  if (!demo && (!def || def.journey === 'none')) return undefined;
  const id = `${kind}:${key}`;
  const billOfLading = demo || kind === 'bl' ? key : billOfLadingOf(key);
  const booking = demo || kind === 'bkg' ? key : bookingOf(key);
  const fixed = def && /^U(\d{6})$/.exec(key.slice(def.pattern.length));
  const firstContainer =
    fixed && def.containerDigit === Number(fixed[1]![0]) ? simuContainer(fixed[1]!) : undefined;
  const journey = buildJourney(demo ? 'demo' : (def!.journey as JourneyKind), {
    id,
    billOfLading,
    booking,
    epochMs,
    containerCount: demo ? 2 : def!.containers,
    ...(firstContainer ? { firstContainer } : {}),
  });
  const shipment: Shipment = {
    id,
    scenario: demo ? TEST_SUCCEEDED : def!.pattern,
    billOfLading,
    booking,
    containers: journey.containers,
    flaky: def?.flaky ?? false,
    cancelled: def?.journey === 'cancelled',
    ...(def?.terminalScript ? { terminalScript: def.terminalScript } : {}),
    events: journey.events,
  };
  remember(shipments, maxShipments, cacheKey, shipment);
  for (const c of shipment.containers) remember(containerIndex, MAX_CONTAINERS, c.number, { kind, key });
  return shipment;
}

/** The journeys built so far for `epochMs`, in the order first served (the AIS feed's vessels). */
export function servedShipments(epochMs: number): Shipment[] {
  const suffix = `@${epochMs}`;
  return [...shipments].filter(([key]) => key.endsWith(suffix)).map(([, s]) => s);
}

const simuContainer = (serial: string) => `SIMU${serial}${checkDigit(`SIMU${serial}`)}`;

export type Resolution =
  | { kind: 'shipment'; shipment: Shipment; reference: { kind: ReferenceKind; value: string } }
  | { kind: 'failure'; detail: string };

/** The simulated shipment a reference designates, or undefined when the carrier would not know it. */
export function resolveReference(
  kind: ReferenceKind,
  value: string,
  epochMs: number,
): Resolution | undefined {
  const v = value.trim().toUpperCase();
  if (v === TEST_FAILED)
    return { kind: 'failure', detail: `${TEST_FAILED} always fails (sandbox test number)` };
  let shipment: Shipment | undefined;
  let reference = { kind, value: v };
  if (v === TEST_SUCCEEDED) {
    shipment = shipmentFor('bl', v, epochMs);
    if (shipment && kind === 'EQ') reference = { kind, value: shipment.containers[0]!.number };
  } else if (kind === 'TRD') {
    shipment = v.startsWith('BOL')
      ? shipmentFor('bkg', `SIM${v.slice(3)}`, epochMs)
      : shipmentFor('bl', v, epochMs);
  } else if (kind === 'BKG') {
    shipment = v.startsWith('BKG')
      ? shipmentFor('bl', `SIM${v.slice(3)}`, epochMs)
      : shipmentFor('bkg', v, epochMs);
  } else if (isValidContainerNumber(v)) {
    shipment = containerShipment(v, epochMs);
  }
  return shipment ? { kind: 'shipment', shipment, reference } : undefined;
}

function containerShipment(container: string, epochMs: number): Shipment | undefined {
  const known = containerIndex.get(container);
  if (known) return shipmentFor(known.kind, known.key, epochMs);
  // SIMU rule: SIMU + 6 digits + check digit; the first digit picks the scenario, and the box is
  // the only container of B/L <prefix>U<6 digits> (SIMU2000001 -> B/L SIMTSU200000).
  if (!container.startsWith('SIMU')) return undefined;
  const serial = container.slice(4, 10);
  const def = SCENARIOS.find((s) => s.containerDigit === Number(serial[0]));
  return def ? shipmentFor('bl', `${def.pattern}U${serial}`, epochMs) : undefined;
}

/** The journey's events published at or before `nowMs` (a prefix of the publication order). */
export function visibleEvents(shipment: Shipment, nowMs: number): SimEvent[] {
  const events = shipment.events;
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.createdMs <= nowMs) lo = mid + 1;
    else hi = mid;
  }
  return events.slice(0, lo);
}

export const REFERENCE_KIND: Record<NumberType, ReferenceKind> = {
  bill_of_lading: 'TRD',
  booking_number: 'BKG',
  container: 'EQ',
};

export type ScenarioAnswer =
  | { kind: 'found'; events: DcsaEvent[]; shipment: Shipment }
  | { kind: 'not_found' }
  | { kind: 'failure'; detail: string };

/**
 * What the simulated carrier answers for a number at a simulated instant: the events that the
 * DCSA reference filter for the number type selects, as a GET /v2/events would return them.
 */
export function lookupNumber(
  numberType: NumberType,
  number: string,
  clock: { now: Date | number; epoch: Date | number },
): ScenarioAnswer {
  const epochMs = new Date(clock.epoch).getTime();
  const nowMs = new Date(clock.now).getTime();
  const resolved = resolveReference(REFERENCE_KIND[numberType], number, epochMs);
  if (!resolved) return { kind: 'not_found' };
  if (resolved.kind === 'failure') return resolved;
  const values = new Set([resolved.reference.value]);
  const events = visibleEvents(resolved.shipment, nowMs)
    .filter((e) => matchesReference(e.event, resolved.reference.kind, values))
    .map((e) => e.event);
  return events.length > 0 ? { kind: 'found', events, shipment: resolved.shipment } : { kind: 'not_found' };
}
