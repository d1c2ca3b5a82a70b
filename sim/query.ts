import type { SimEvent } from './events.ts';
import { matchesReference, type ReferenceKind } from './match.ts';

// GET /v2/events query parameters, validated the way the DCSA Conformance-Gateway publisher
// does: unknown codes and filters that cannot apply to the requested eventType are 400s.
// Filters are ANDed; comma-separated (or repeated) values of one filter are ORed.

const EVENT_TYPES = ['SHIPMENT', 'TRANSPORT', 'EQUIPMENT'] as const;
type EventTypeName = (typeof EVENT_TYPES)[number];

// CANC is outside the 2.2 enum, but the simulator publishes it (cancelled bookings), so it filters.
const CODE_FILTERS = {
  shipmentEventTypeCode: {
    type: 'SHIPMENT',
    codes: 'RECE DRFT PENA PENU REJE APPR ISSU SURR SUBM VOID CONF REQS CMPL HOLD RELS CANC',
  },
  documentTypeCode: { type: 'SHIPMENT', codes: 'CBR BKG SHI SRM TRD ARN VGM CAS CUS DGD OOG' },
  transportEventTypeCode: { type: 'TRANSPORT', codes: 'ARRI DEPA' },
  equipmentEventTypeCode: {
    type: 'EQUIPMENT',
    codes: 'LOAD DISC GTIN GTOT STUF STRP PICK DROP INSP RSEA RMVD',
  },
} as const;
type CodeFilter = keyof typeof CODE_FILTERS;

// Reference filters, with the deprecated 2.x alias that means the same thing.
const REFERENCE_PARAMS: [string, ReferenceKind][] = [
  ['transportDocumentReference', 'TRD'],
  ['carrierBookingReference', 'BKG'],
  ['bookingReference', 'BKG'],
  ['equipmentReference', 'EQ'],
];

const CALL_FILTERS = [
  'transportCallID',
  'vesselIMONumber',
  'exportVoyageNumber',
  'carrierServiceCode',
  'UNLocationCode',
];

const SORT_FIELDS = [
  'eventCreatedDateTime',
  'eventDateTime',
  'eventID',
  'eventType',
  'eventClassifierCode',
] as const;
type SortField = (typeof SORT_FIELDS)[number];

const OPERATORS = ['gte', 'gt', 'lte', 'lt', 'eq'] as const;
type Operator = (typeof OPERATORS)[number];

export interface EventQuery {
  eventTypes: Set<string> | null;
  codes: Partial<Record<CodeFilter, Set<string>>>;
  references: { kind: ReferenceKind; values: Set<string> }[];
  call: Record<string, Set<string>>;
  created: { op: Operator; ms: number }[];
  limit: number;
  sort: { field: SortField; desc: boolean }[];
}

/** Parameter names the query understands (anything else is ignored, as carriers do). */
export function isFilterParam(name: string): boolean {
  return (
    name === 'eventType' ||
    name in CODE_FILTERS ||
    REFERENCE_PARAMS.some(([p]) => p === name) ||
    CALL_FILTERS.includes(name) ||
    name === 'carrierVoyageNumber' ||
    name.startsWith('eventCreatedDateTime')
  );
}

function list(params: URLSearchParams, name: string): string[] | null {
  const all = params.getAll(name);
  if (all.length === 0) return null;
  return all
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

export type ParsedQuery = { ok: true; query: EventQuery } | { ok: false; message: string };

export function parseEventQuery(params: URLSearchParams): ParsedQuery {
  const fail = (message: string): ParsedQuery => ({ ok: false, message });
  const eventTypes = list(params, 'eventType');
  if (eventTypes) {
    const bad = eventTypes.find((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (bad !== undefined) return fail(`eventType '${bad}' is not one of ${EVENT_TYPES.join(', ')}`);
  }
  const codes: EventQuery['codes'] = {};
  for (const name of Object.keys(CODE_FILTERS) as CodeFilter[]) {
    const values = list(params, name);
    if (!values) continue;
    const { type, codes: allowed } = CODE_FILTERS[name];
    const bad = values.find((v) => !allowed.split(' ').includes(v));
    if (bad !== undefined) return fail(`${name} '${bad}' is not a valid code`);
    if (eventTypes && !eventTypes.includes(type))
      return fail(`${name} cannot be used with eventType=${eventTypes}`);
    codes[name] = new Set(values);
  }
  const references: EventQuery['references'] = [];
  for (const [name, kind] of REFERENCE_PARAMS) {
    const values = list(params, name);
    if (values) references.push({ kind, values: new Set(values.map((v) => v.toUpperCase())) });
  }
  const call: EventQuery['call'] = {};
  for (const name of CALL_FILTERS) {
    const values = list(params, name);
    if (values) call[name] = new Set(values);
  }
  const voyage = list(params, 'carrierVoyageNumber');
  if (voyage) call['exportVoyageNumber'] = new Set([...(call['exportVoyageNumber'] ?? []), ...voyage]);

  const created: EventQuery['created'] = [];
  for (const [key, raw] of params) {
    if (!key.startsWith('eventCreatedDateTime')) continue;
    const op = key === 'eventCreatedDateTime' ? 'eq' : key.slice('eventCreatedDateTime:'.length);
    if (!(OPERATORS as readonly string[]).includes(op)) return fail(`unknown operator in '${key}'`);
    // An unencoded '+' in the offset arrives as a space.
    const ms = Date.parse(raw.trim().replace(' ', '+'));
    if (Number.isNaN(ms)) return fail(`${key} '${raw}' is not an ISO 8601 date-time`);
    created.push({ op: op as Operator, ms });
  }

  const limitRaw = params.get('limit');
  const limit = limitRaw === null ? 100 : Number(limitRaw);
  if (!Number.isInteger(limit) || limit < 1) return fail(`limit '${limitRaw}' must be an integer >= 1`);

  const sort: EventQuery['sort'] = [];
  for (const part of list(params, 'sort') ?? []) {
    const [field, dir = 'ASC'] = part.split(':');
    if (!(SORT_FIELDS as readonly string[]).includes(field!)) return fail(`cannot sort by '${field}'`);
    if (!/^(ASC|DESC)$/i.test(dir)) return fail(`sort direction '${dir}' must be ASC or DESC`);
    sort.push({ field: field as SortField, desc: dir.toUpperCase() === 'DESC' });
  }
  return {
    ok: true,
    query: { eventTypes: eventTypes && new Set(eventTypes), codes, references, call, created, limit, sort },
  };
}

export function eventMatches(se: SimEvent, q: EventQuery): boolean {
  const e = se.event;
  const type = e.eventType as EventTypeName;
  if (q.eventTypes && !q.eventTypes.has(type)) return false;
  // A code filter constrains events of its own type; without eventType it also implies that type.
  let implied = false;
  for (const name of Object.keys(q.codes) as CodeFilter[]) {
    const wanted = q.codes[name]!;
    if (CODE_FILTERS[name].type !== type) continue;
    implied = true;
    if (!wanted.has((e[name] as string | undefined) ?? '')) return false;
  }
  if (!q.eventTypes && Object.keys(q.codes).length > 0 && !implied) return false;
  for (const ref of q.references) {
    if (!matchesReference(e, ref.kind, ref.values)) return false;
  }
  for (const [name, wanted] of Object.entries(q.call)) {
    if (!wanted.has(callValue(se, name) ?? '')) return false;
  }
  for (const c of q.created) {
    const t = se.createdMs;
    const ok =
      c.op === 'gte'
        ? t >= c.ms
        : c.op === 'gt'
          ? t > c.ms
          : c.op === 'lte'
            ? t <= c.ms
            : c.op === 'lt'
              ? t < c.ms
              : t === c.ms;
    if (!ok) return false;
  }
  return true;
}

function callValue(se: SimEvent, name: string): string | undefined {
  const tc = se.event.transportCall;
  switch (name) {
    case 'vesselIMONumber':
      return tc?.vessel?.vesselIMONumber;
    case 'UNLocationCode':
      return se.event.eventLocation?.UNLocationCode ?? tc?.UNLocationCode;
    default:
      return tc?.[name as 'transportCallID' | 'exportVoyageNumber' | 'carrierServiceCode'];
  }
}

/** Sort by the requested fields; publication order (eventCreatedDateTime) breaks ties. */
export function sortEvents(events: SimEvent[], sort: EventQuery['sort']): SimEvent[] {
  if (sort.length === 0) return events;
  const key = (e: SimEvent, f: SortField): number | string =>
    f === 'eventCreatedDateTime' ? e.createdMs : f === 'eventDateTime' ? e.eventMs : e.event[f];
  return [...events].sort((a, b) => {
    for (const { field, desc } of sort) {
      const x = key(a, field);
      const y = key(b, field);
      if (x !== y) return (x < y ? -1 : 1) * (desc ? -1 : 1);
    }
    return 0;
  });
}
