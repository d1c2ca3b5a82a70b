import type { TerminalFee, TerminalHold, TerminalStatus } from '../types.ts';

// Reads the simulator's terminal feed answer (docs/simulator.md, "Terminal feed") into a
// TerminalStatus. Pure; shared by the HTTP adapter and the in-process sandbox feed. Anything
// malformed is dropped field by field rather than failing the whole answer, except a body that is
// not an object (null: the caller reports an unrecognized answer).

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null;
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const instant = (v: unknown): string | null => {
  const s = text(v);
  if (!s) return null;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
};

// The reference's hold names are case-sensitive: freight, customs, USDA, VACIS, TMF, other.
const HOLD_NAMES: Record<string, string> = {
  freight: 'freight',
  line: 'freight',
  customs: 'customs',
  usda: 'USDA',
  vacis: 'VACIS',
  tmf: 'TMF',
};
const FEE_TYPES = new Set(['demurrage', 'exam', 'extended_dwell_time', 'other', 'total']);

export function readSimTerminalAnswer(body: unknown): TerminalStatus | null {
  const b = obj(body);
  if (!b) return null;
  const availability = obj(b.availability) ?? {};
  const holds: TerminalHold[] = [];
  for (const h of Array.isArray(b.holds) ? b.holds : []) {
    const o = obj(h);
    const type = text(o?.type)?.toLowerCase();
    if (!o || !type) continue;
    holds.push({
      name: HOLD_NAMES[type] ?? 'other',
      status: o.status === 'pending' ? 'pending' : 'hold',
      description: text(o.description),
    });
  }
  const fees: TerminalFee[] = [];
  for (const f of Array.isArray(b.fees) ? b.fees : []) {
    const o = obj(f);
    const amount = typeof o?.amount === 'number' && Number.isFinite(o.amount) ? o.amount : null;
    const type = text(o?.type)?.toLowerCase();
    if (!o || amount === null || !type) continue;
    fees.push({
      type: FEE_TYPES.has(type) ? type : 'other',
      amount,
      currency_code: text(o.currency)?.toUpperCase() ?? null,
    });
  }
  const lfd = obj(b.last_free_day) ?? {};
  const gate = obj(b.gate_out);
  const gateAt = instant(gate?.at);
  return {
    availabilityKnown: availability.known === true,
    available: typeof availability.available === 'boolean' ? availability.available : null,
    location: text(availability.location),
    holds,
    fees,
    lastFreeDay: { line: instant(lfd.line), terminal: instant(lfd.terminal), rail: instant(lfd.rail) },
    pickupAppointmentAt: instant(b.appointment_at),
    vesselBerthedAt: instant(obj(b.vessel)?.berthed_at),
    left:
      gate && gateAt
        ? {
            at: gateAt,
            kind: gate.kind === 'delivered' ? 'delivered' : 'full_out',
            chassisNumber: text(gate.chassis),
          }
        : null,
  };
}
