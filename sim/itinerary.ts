import type { Call, ContainerInfo, EventBuilder, Mode } from './events.ts';
import { hashInt, simUuid } from './hash.ts';
import type { Place, Vessel } from './places.ts';
import { DAY, HOUR } from './time.ts';

// A route (legs between real terminals) becomes a timeline of what happens, relative to the
// booking (t = 0). Scenarios then anchor the timeline on the simulator's clock and emit it:
// PLN/EST events from the moment they are published, ACT events when they happen.

export interface LegSpec {
  mode: Exclude<Mode, 'TRUCK'>;
  from: Place;
  to: Place;
  /** Calls where the box stays on board: ARRI/DEPA only, never a transshipment. */
  via?: Place[];
  transitDays: number;
  vessel?: Vessel;
  service?: string;
  voyage?: string;
  /** Days between the box being ready (gate-in or previous discharge) and departure. */
  dwellDays?: number;
  /** The arrival slips by two days, announced by a series of EST revisions. */
  delayedArrival?: boolean;
}

export interface RouteSpec {
  emptyDepot: Place;
  legs: LegSpec[];
  returnDepot: Place;
  /** Hours from booking to the empty pick-up (the box is assigned then). */
  pickupAfterHours?: number;
  /** Cargo rolled: these legs were the original plan; the roll is announced 12 h before they sail. */
  rolledFrom?: LegSpec[];
  /** The transport plan (PLN/EST) is published when the container is picked up, not at booking. */
  planAtPickup?: boolean;
  /**
   * POD terminal reassigned: a week before the arrival the line publishes the POD call at this
   * other terminal of the same port (new PLN/EST), and the vessel arrives and discharges there.
   */
  reassignPodTo?: Place;
  /** Carrier haulage: after the full out, the box is dropped (DROP LADEN) at this customer location. */
  deliverTo?: Place;
  /** Days the box waits at the POD terminal between discharge and full out (default 2). */
  podDwellDays?: number;
}

interface Estimate {
  createdMs: number;
  atMs: number;
  delayReasonCode?: string;
  changeRemark?: string;
}

interface TransportStep {
  kind: 'transport';
  code: 'ARRI' | 'DEPA';
  call: Call;
  atMs: number;
  plan: Estimate;
  estimates: Estimate[];
  /** false for calls of an abandoned plan: they only ever had PLN/EST events. */
  happens: boolean;
}

interface EquipmentStep {
  kind: 'equipment';
  code: 'GTOT' | 'GTIN' | 'LOAD' | 'DISC' | 'DROP';
  empty: 'EMPTY' | 'LADEN';
  call: Call;
  atMs: number;
  /** Per-container spacing: boxes of one B/L are handled one after the other. */
  gapMs: number;
  eventLocation?: Place;
}

interface ShipmentStep {
  kind: 'shipment';
  code: string;
  docType: 'BKG' | 'TRD';
  atMs: number;
}

type Step = TransportStep | EquipmentStep | ShipmentStep;

export interface Timeline {
  steps: Step[];
  pickupMs: number;
  /** The last container's empty return. */
  endMs: number;
  /** The first container's empty return (containers follow each other 7 h apart). */
  firstEmptyReturnMs: number;
}

const round = (ms: number) => Math.round(ms / 60_000) * 60_000;

export function planRoute(route: RouteSpec, seed: string, containerCount: number): Timeline {
  const steps: Step[] = [];
  const jitter = (name: string, maxHours: number) => hashInt(`${seed}:${name}`, maxHours * 60 + 1) * 60_000;
  const pickup = round((route.pickupAfterHours ?? 20) * HOUR + jitter('pickup', 2));
  const gateIn = pickup + 40 * HOUR + jitter('gatein', 6);
  let planAt = route.planAtPickup ? pickup : HOUR;

  steps.push({ kind: 'shipment', code: 'CONF', docType: 'BKG', atMs: 0 });
  const emptyOut = truck(seed, 'empty-out', route.emptyDepot);
  steps.push(gate('GTOT', 'EMPTY', emptyOut, pickup, 2 * HOUR, route.emptyDepot));
  const firstFrom = route.legs[0]!.from;
  steps.push(gate('GTIN', 'LADEN', truck(seed, 'gate-in', firstFrom), gateIn, 3 * HOUR, firstFrom));
  steps.push({ kind: 'shipment', code: 'DRFT', docType: 'TRD', atMs: gateIn + 6 * HOUR });

  if (route.rolledFrom) {
    const abandoned = sail(route.rolledFrom, gateIn, seed, 'orig', planAt, false);
    steps.push(...abandoned.steps);
    planAt = abandoned.firstDepartMs - 12 * HOUR;
  }
  const remark = route.rolledFrom ? 'Cargo rolled to a later sailing; port of discharge changed' : undefined;
  const sailed = sail(route.legs, gateIn, seed, 'leg', planAt, true, remark);
  if (route.reassignPodTo) reassignPod(sailed.steps, route.reassignPodTo);
  steps.push(...sailed.steps);
  steps.push({ kind: 'shipment', code: 'ISSU', docType: 'TRD', atMs: sailed.firstDepartMs + 20 * HOUR });

  const last = route.legs[route.legs.length - 1]!;
  const fullOut = sailed.readyMs + (route.podDwellDays ?? 2) * DAY + jitter('fullout', 8);
  steps.push(gate('GTOT', 'LADEN', truck(seed, 'full-out', last.to), fullOut, 5 * HOUR, last.to));
  if (route.deliverTo) {
    const drop = fullOut + 6 * HOUR + jitter('drop', 3);
    const place = route.deliverTo;
    steps.push({
      kind: 'equipment',
      code: 'DROP',
      empty: 'LADEN',
      call: truck(seed, 'delivery', place),
      atMs: drop,
      gapMs: 5 * HOUR,
      eventLocation: place,
    });
  }
  const emptyIn = fullOut + 3 * DAY + jitter('emptyin', 8);
  steps.push(
    gate('GTIN', 'EMPTY', truck(seed, 'empty-in', route.returnDepot), emptyIn, 7 * HOUR, route.returnDepot),
  );

  return {
    steps,
    pickupMs: pickup,
    endMs: emptyIn + (containerCount - 1) * 7 * HOUR,
    firstEmptyReturnMs: emptyIn,
  };
}

function sail(
  legs: LegSpec[],
  readyFrom: number,
  seed: string,
  tag: string,
  planAt: number,
  happens: boolean,
  changeRemark?: string,
): { steps: Step[]; firstDepartMs: number; readyMs: number } {
  const steps: Step[] = [];
  let ready = readyFrom;
  let firstDepart = 0;
  legs.forEach((leg, i) => {
    const key = `${seed}:${tag}${i}`;
    const dwell = leg.dwellDays ?? (i === 0 ? 1.5 : 2.5);
    const depart = round(ready + dwell * DAY + hashInt(`${key}:dep`, 361) * 60_000);
    if (i === 0) firstDepart = depart;
    const transit = leg.transitDays * DAY;
    const onTime = round(depart + transit + hashInt(`${key}:arr`, 241) * 60_000);
    const arrive = leg.delayedArrival ? onTime + 2 * DAY : onTime;
    const calls = [leg.from, ...(leg.via ?? []), leg.to].map(
      (place, seq): Call => ({
        id: simUuid(`${key}:call:${seq}`),
        mode: leg.mode,
        place,
        ...(leg.vessel ? { vessel: leg.vessel } : {}),
        ...(leg.service ? { service: leg.service } : {}),
        ...(leg.voyage ? { voyage: leg.voyage } : {}),
        sequence: seq + 1,
      }),
    );
    const transport = (code: 'ARRI' | 'DEPA', call: Call, at: number, delayed = false): TransportStep => {
      const dev = (hashInt(`${key}:${code}:${call.sequence}:pln`, 25) - 12) * 30 * 60_000;
      const plannedAt = delayed ? onTime + dev : at + dev;
      const plan = { createdMs: planAt, atMs: plannedAt, ...(changeRemark ? { changeRemark } : {}) };
      const estimates = [{ ...plan }];
      if (delayed) estimates.push(...etaRevisions(depart, onTime, at));
      else if (happens && at - 2 * DAY > planAt + HOUR) {
        const near = (hashInt(`${key}:${code}:${call.sequence}:est`, 9) - 4) * 30 * 60_000;
        estimates.push({ createdMs: at - 2 * DAY, atMs: at + near });
      }
      return { kind: 'transport', code, call, atMs: at, plan, estimates, happens };
    };
    const first = calls[0]!;
    const lastCall = calls[calls.length - 1]!;
    if (happens) steps.push(laden('LOAD', first, depart - (leg.mode === 'RAIL' ? 5 : 9) * HOUR));
    steps.push(transport('DEPA', first, depart));
    calls.slice(1, -1).forEach((call, k) => {
      const arr = round(depart + (transit * (k + 1)) / (calls.length - 1));
      steps.push(transport('ARRI', call, arr), transport('DEPA', call, arr + 16 * HOUR));
    });
    steps.push(transport('ARRI', lastCall, arrive, leg.delayedArrival));
    const disc = arrive + (leg.mode === 'RAIL' ? 5 : 8) * HOUR;
    if (happens) steps.push(laden('DISC', lastCall, disc));
    ready = disc;
  });
  return { steps, firstDepartMs: firstDepart, readyMs: ready };
}

/** The POD call moves to another terminal a week before arrival (RouteSpec.reassignPodTo). */
function reassignPod(steps: Step[], to: Place): void {
  const i = steps.findLastIndex((s) => s.kind === 'transport' && s.code === 'ARRI');
  const arrival = steps[i] as TransportStep | undefined;
  if (!arrival) return;
  const at = arrival.atMs - 7 * DAY;
  const call: Call = { ...arrival.call, place: to };
  const moved: TransportStep = {
    ...arrival,
    call,
    plan: { createdMs: at, atMs: arrival.plan.atMs },
    estimates: [{ createdMs: at, atMs: arrival.atMs }],
  };
  // The old terminal's call: what was published before the reassignment, and it never happens.
  steps[i] = { ...arrival, estimates: arrival.estimates.filter((e) => e.createdMs < at), happens: false };
  steps.splice(i + 1, 0, moved);
  for (const s of steps.slice(i + 2)) if (s.kind === 'equipment' && s.code === 'DISC') s.call = call;
}

// A delayed arrival is re-estimated several times while the vessel is at sea, each a new EST.
function etaRevisions(departMs: number, onTimeMs: number, actualMs: number): Estimate[] {
  const revisions: Estimate[] = [
    { createdMs: departMs + DAY, atMs: onTimeMs + 10 * HOUR },
    {
      createdMs: departMs + 4 * DAY,
      atMs: onTimeMs + 30 * HOUR,
      delayReasonCode: 'WEA',
      changeRemark: 'Adverse weather on passage',
    },
    {
      createdMs: departMs + 8 * DAY,
      atMs: onTimeMs + 54 * HOUR,
      changeRemark: 'Berth congestion at port of discharge',
    },
    { createdMs: actualMs - DAY, atMs: actualMs - HOUR },
  ];
  // Short passages leave no room for the mid-voyage revisions; the last one always stays.
  return revisions.filter((r, i) => i === revisions.length - 1 || r.createdMs < actualMs - 2 * DAY);
}

function truck(seed: string, name: string, place: Place): Call {
  return { id: simUuid(`${seed}:truck:${name}`), mode: 'TRUCK', place };
}

function gate(
  code: 'GTOT' | 'GTIN',
  empty: 'EMPTY' | 'LADEN',
  call: Call,
  atMs: number,
  gapMs: number,
  eventLocation: Place,
): EquipmentStep {
  return { kind: 'equipment', code, empty, call, atMs, gapMs, eventLocation };
}

function laden(code: 'LOAD' | 'DISC', call: Call, atMs: number): EquipmentStep {
  return { kind: 'equipment', code, empty: 'LADEN', call, atMs, gapMs: 20 * 60_000 };
}

/** Emit a timeline anchored at `anchorMs` (the booking instant). */
export function emitTimeline(
  b: EventBuilder,
  timeline: Timeline,
  anchorMs: number,
  containers: ContainerInfo[],
): void {
  for (const step of timeline.steps) {
    if (step.kind === 'shipment') {
      b.shipment(step.code, step.docType, anchorMs + step.atMs);
    } else if (step.kind === 'transport') {
      const extra = (e: Estimate) => ({
        ...(e.delayReasonCode ? { delayReasonCode: e.delayReasonCode } : {}),
        ...(e.changeRemark ? { changeRemark: e.changeRemark } : {}),
      });
      const { plan } = step;
      b.transport(step.code, 'PLN', step.call, anchorMs + plan.atMs, anchorMs + plan.createdMs, extra(plan));
      for (const e of step.estimates) {
        b.transport(step.code, 'EST', step.call, anchorMs + e.atMs, anchorMs + e.createdMs, extra(e));
      }
      if (step.happens) b.transport(step.code, 'ACT', step.call, anchorMs + step.atMs, anchorMs + step.atMs);
    } else {
      containers.forEach((c, i) => {
        const at = anchorMs + step.atMs + i * step.gapMs;
        b.equipment(c, step.code, step.empty, step.call, at, step.eventLocation);
      });
    }
  }
}
