// A container's journey as port calls in order, derived from what the engine stored: the
// shipment's planned ports and schedule, and the container's actual transport events. Pure:
// the service passes plain objects in; nothing here reads the database.

export type CallRole = 'pol' | 'transshipment' | 'pod' | 'destination';
export type LegMode = 'vessel' | 'rail';

export interface ShipmentFacts {
  port_of_lading_locode: string | null;
  port_of_discharge_locode: string | null;
  destination_locode: string | null;
  transshipment_locodes: string[];
  pod_terminal_id: string | null;
  destination_terminal_id: string | null;
  pod_vessel_id: string | null;
  pod_voyage_number: string | null;
  pol_etd_at: Date | null;
  pol_atd_at: Date | null;
  pod_eta_at: Date | null;
  pod_ata_at: Date | null;
  destination_eta_at: Date | null;
  destination_ata_at: Date | null;
  scac: string;
}

export interface ContainerFacts {
  pod_terminal_id: string | null;
  ind_eta_at: Date | null;
  ind_ata_at: Date | null;
}

export interface EventFacts {
  event: string;
  timestamp: Date | null;
  location_locode: string | null;
  terminal_id: string | null;
  vessel_id: string | null;
  voyage_number: string | null;
}

export interface CallSide {
  mode: LegMode | null;
  scac: string | null;
  vessel_id: string | null;
  voyage_number: string | null;
  /** Estimated time (ETA inbound, ETD outbound). */
  estimated: Date | null;
  /** Actual time (ATA inbound, ATD outbound). */
  actual: Date | null;
}

export interface PortCall {
  locode: string;
  role: CallRole;
  /** POL, TS1, TS2 ..., POD, and DEST for an inland destination. */
  label: string;
  /** 1-based position in the journey. */
  sequence: number;
  terminal_id: string | null;
  inbound: CallSide;
  outbound: CallSide;
}

export interface Leg {
  /** Index of the departure call in Journey.calls. */
  index: number;
  from: PortCall;
  to: PortCall;
  mode: LegMode | null;
  vessel_id: string | null;
  voyage_number: string | null;
}

export interface Journey {
  calls: PortCall[];
  legs: Leg[];
}

const P = 'container.transport.';
/** Which side of a call each event informs, and whether its time is that side's actual time. */
const EVENT_SIDE: Record<string, { side: 'inbound' | 'outbound'; mode: LegMode; actual: boolean }> = {
  [`${P}vessel_loaded`]: { side: 'outbound', mode: 'vessel', actual: false },
  [`${P}vessel_departed`]: { side: 'outbound', mode: 'vessel', actual: true },
  [`${P}transshipment_arrived`]: { side: 'inbound', mode: 'vessel', actual: true },
  [`${P}transshipment_discharged`]: { side: 'inbound', mode: 'vessel', actual: false },
  [`${P}transshipment_loaded`]: { side: 'outbound', mode: 'vessel', actual: false },
  [`${P}transshipment_departed`]: { side: 'outbound', mode: 'vessel', actual: true },
  [`${P}feeder_loaded`]: { side: 'outbound', mode: 'vessel', actual: false },
  [`${P}feeder_departed`]: { side: 'outbound', mode: 'vessel', actual: true },
  [`${P}feeder_arrived`]: { side: 'inbound', mode: 'vessel', actual: true },
  [`${P}feeder_discharged`]: { side: 'inbound', mode: 'vessel', actual: false },
  [`${P}vessel_arrived`]: { side: 'inbound', mode: 'vessel', actual: true },
  [`${P}vessel_berthed`]: { side: 'inbound', mode: 'vessel', actual: false },
  [`${P}vessel_discharged`]: { side: 'inbound', mode: 'vessel', actual: false },
  [`${P}rail_loaded`]: { side: 'outbound', mode: 'rail', actual: false },
  [`${P}rail_departed`]: { side: 'outbound', mode: 'rail', actual: true },
  [`${P}rail_arrived`]: { side: 'inbound', mode: 'rail', actual: true },
  [`${P}rail_unloaded`]: { side: 'inbound', mode: 'rail', actual: false },
  [`${P}arrived_at_inland_destination`]: { side: 'inbound', mode: 'rail', actual: true },
};

const TS_EVENT = /^container\.transport\.transshipment_/;

const emptySide = (): CallSide => ({
  mode: null,
  scac: null,
  vessel_id: null,
  voyage_number: null,
  estimated: null,
  actual: null,
});

/** Port calls and legs of one container. Ports with no UN/LOCODE are left out. */
export function buildJourney(s: ShipmentFacts, c: ContainerFacts, events: readonly EventFacts[]): Journey {
  const ordered = [...events].sort(
    (a, b) => (a.timestamp?.getTime() ?? Infinity) - (b.timestamp?.getTime() ?? Infinity),
  );
  const ts = [...s.transshipment_locodes];
  for (const e of ordered) {
    const at = e.location_locode;
    if (
      at &&
      TS_EVENT.test(e.event) &&
      !ts.includes(at) &&
      at !== s.port_of_lading_locode &&
      at !== s.port_of_discharge_locode
    )
      ts.push(at);
  }
  const plan: Array<[string | null, CallRole]> = [
    [s.port_of_lading_locode, 'pol'],
    ...ts.map((l): [string, CallRole] => [l, 'transshipment']),
    [s.port_of_discharge_locode, 'pod'],
  ];
  if (s.destination_locode && s.destination_locode !== s.port_of_discharge_locode)
    plan.push([s.destination_locode, 'destination']);

  const calls: PortCall[] = [];
  let tsCount = 0;
  for (const [locode, role] of plan) {
    if (!locode || calls.some((x) => x.locode === locode)) continue;
    const label =
      role === 'pol' ? 'POL' : role === 'pod' ? 'POD' : role === 'destination' ? 'DEST' : `TS${++tsCount}`;
    calls.push({
      locode,
      role,
      label,
      sequence: calls.length + 1,
      terminal_id: null,
      inbound: emptySide(),
      outbound: emptySide(),
    });
  }
  const byLocode = new Map(calls.map((x) => [x.locode, x]));

  for (const e of ordered) {
    const rule = EVENT_SIDE[e.event];
    const call = e.location_locode ? byLocode.get(e.location_locode) : undefined;
    if (!rule || !call) continue;
    const side = call[rule.side];
    side.mode = rule.mode;
    if (e.vessel_id) side.vessel_id = e.vessel_id;
    if (e.voyage_number) side.voyage_number = e.voyage_number;
    if (rule.actual && e.timestamp) side.actual = e.timestamp;
    if (e.terminal_id && rule.mode === 'vessel') call.terminal_id ??= e.terminal_id;
  }

  // The shipment's schedule fills what events have not (yet) said.
  const pol = calls.find((x) => x.role === 'pol');
  const pod = calls.find((x) => x.role === 'pod');
  const dest = calls.find((x) => x.role === 'destination');
  if (pol) {
    pol.outbound.estimated = s.pol_etd_at;
    pol.outbound.actual ??= s.pol_atd_at;
    pol.outbound.mode ??= 'vessel';
  }
  if (pod) {
    pod.inbound.estimated = s.pod_eta_at;
    pod.inbound.actual ??= s.pod_ata_at;
    pod.inbound.mode ??= 'vessel';
    pod.inbound.vessel_id ??= s.pod_vessel_id;
    pod.inbound.voyage_number ??= s.pod_voyage_number;
    pod.terminal_id = c.pod_terminal_id ?? s.pod_terminal_id ?? pod.terminal_id;
  }
  if (dest) {
    dest.inbound.estimated = c.ind_eta_at ?? s.destination_eta_at;
    dest.inbound.actual ??= c.ind_ata_at ?? s.destination_ata_at;
    dest.terminal_id = s.destination_terminal_id;
  }
  for (const call of calls) {
    if (call.role !== 'pol' && call.role !== 'destination') call.inbound.mode ??= 'vessel';
    if (call.role === 'transshipment') call.outbound.mode ??= 'vessel';
  }

  const legs: Leg[] = [];
  for (let i = 0; i + 1 < calls.length; i++) {
    const from = calls[i]!;
    const to = calls[i + 1]!;
    // A leg's carrier facts are known at either end: copy each side's to the other.
    const mode = from.outbound.mode ?? to.inbound.mode;
    const vessel = mode === 'vessel' ? (from.outbound.vessel_id ?? to.inbound.vessel_id) : null;
    const voyage = mode === 'vessel' ? (from.outbound.voyage_number ?? to.inbound.voyage_number) : null;
    from.outbound.mode = to.inbound.mode = mode;
    from.outbound.vessel_id = to.inbound.vessel_id = vessel;
    from.outbound.voyage_number = to.inbound.voyage_number = voyage;
    from.outbound.scac = to.inbound.scac = mode === 'vessel' ? s.scac : null;
    legs.push({ index: i, from, to, mode, vessel_id: vessel, voyage_number: voyage });
  }
  return { calls, legs };
}
