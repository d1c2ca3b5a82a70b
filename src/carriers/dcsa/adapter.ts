// CarrierAdapter for carriers that publish DCSA T&T v2.2. Validates the number locally (so an
// obviously wrong number never costs a request from the carrier budget), then asks the client
// (the one I/O file) and reads its answer into a carrier snapshot (snapshot.ts, pure).

import { checkContainerNumber } from '../../util/iso6346.ts';
import type { FetchResult } from '../dcsa-http.ts';
import type { CarrierAdapter, LookupContext, LookupResult, NumberType } from '../types.ts';
import type { DcsaClient, DcsaReferenceFilter } from './client.ts';
import { dcsaSnapshot } from './snapshot.ts';

export const DCSA_ADAPTER = 'dcsa-tnt-v2';

export const FILTER: Record<NumberType, DcsaReferenceFilter> = {
  bill_of_lading: 'transportDocumentReference',
  booking_number: 'carrierBookingReference',
  container: 'equipmentReference',
};

// Maximum lengths from the v2.2 query parameter definitions.
const MAX_LENGTH: Record<NumberType, number> = { bill_of_lading: 20, booking_number: 35, container: 15 };

/** ISO 6346, the product's one check (util/iso6346.ts): what create validation accepted. */
export const isValidContainerNumber = (number: string): boolean => checkContainerNumber(number).ok;

/** Upper case, separators removed: carriers index references without spaces or dashes. */
export function normalizeNumber(numberType: NumberType, number: string): string {
  const n = number.trim().toUpperCase();
  return numberType === 'container' ? n.replace(/[\s\-./]/g, '') : n.replace(/\s+/g, '');
}

export interface DcsaAdapterOptions {
  scac: string;
  numberTypes: readonly NumberType[];
  client: DcsaClient;
  /** Number types the carrier answers only together with an equipmentReference. */
  requiresEquipment?: readonly NumberType[];
}

export type ReferenceFilters = Partial<Record<DcsaReferenceFilter, string>>;

// A booking with more containers than this is asked for its first ones only (each costs a request).
const MAX_CONTAINER_QUERIES = 20;

/**
 * The reference filters one look-up asks: the number's own filter, or, for a number type the
 * carrier answers only together with a container (`requires_equipment`), one query per container
 * number among the context's references (the request's ref_numbers), since such a carrier
 * refuses the number alone.
 */
export function referenceQueries(
  scac: string,
  numberType: NumberType,
  number: string,
  requiresEquipment: readonly NumberType[],
  context?: LookupContext,
): { ok: true; queries: ReferenceFilters[] } | { ok: false; result: LookupResult } {
  const own: ReferenceFilters = { [FILTER[numberType]]: number };
  if (numberType === 'container' || !requiresEquipment.includes(numberType))
    return { ok: true, queries: [own] };
  const containers = new Set(
    (context?.references ?? []).map((r) => normalizeNumber('container', r)).filter(isValidContainerNumber),
  );
  if (containers.size === 0) {
    const detail = `${scac} looks up a ${numberType} only together with a container number: add the container numbers to the request's ref_numbers`;
    return { ok: false, result: { kind: 'permanent_failure', reason: 'invalid_number', detail } };
  }
  const queries = [...containers]
    .slice(0, MAX_CONTAINER_QUERIES)
    .map((equipmentReference) => ({ ...own, equipmentReference }));
  return { ok: true, queries };
}

/** Asks each query in turn: a failure ends the look-up; the events found are merged by eventID. */
export async function askEach(
  queries: readonly ReferenceFilters[],
  ask: (filters: ReferenceFilters) => Promise<FetchResult>,
): Promise<FetchResult> {
  const events: unknown[] = [];
  const ids = new Set<string>();
  for (const filters of queries) {
    const r = await ask(filters);
    if (r.kind === 'not_found') continue;
    if (r.kind !== 'found') return r;
    for (const e of r.events) {
      const id =
        (e as { eventID?: unknown; eventId?: unknown } | null)?.eventID ??
        (e as { eventId?: unknown })?.eventId;
      if (typeof id === 'string') {
        if (ids.has(id)) continue;
        ids.add(id);
      }
      events.push(e);
    }
  }
  return events.length === 0 ? { kind: 'not_found' } : { kind: 'found', events };
}

/**
 * The number as the carrier indexes it, or the failure to report without asking the carrier (an
 * obviously wrong number must never cost a request from the carrier budget).
 */
export function checkNumber(
  scac: string,
  numberTypes: readonly NumberType[],
  numberType: NumberType,
  number: unknown,
): { ok: true; number: string } | { ok: false; result: LookupResult } {
  const invalid = (detail: string) =>
    ({ ok: false, result: { kind: 'permanent_failure', reason: 'invalid_number', detail } }) as const;
  if (!numberTypes.includes(numberType)) return invalid(`${scac} does not support ${numberType} lookups`);
  const n = typeof number === 'string' ? normalizeNumber(numberType, number) : '';
  if (n === '' || n.length > MAX_LENGTH[numberType] || !/^[A-Z0-9\-_/.]+$/.test(n))
    return invalid(`not a valid ${numberType}`);
  if (numberType === 'container' && !isValidContainerNumber(n))
    return invalid('not a valid ISO 6346 container number (format or check digit)');
  return { ok: true, number: n };
}

/** A crash inside a lookup, as the failure the engine retries later. */
export function crashed(err: unknown): LookupResult {
  return {
    kind: 'temporary_failure',
    reason: 'internal_processing_error',
    detail: String(err).slice(0, 300),
  };
}

export function createDcsaAdapter(options: DcsaAdapterOptions): CarrierAdapter {
  const numberTypes = [...options.numberTypes];
  const requires = options.requiresEquipment ?? [];
  return {
    scac: options.scac,
    numberTypes,
    async lookup(numberType, number, signal, context): Promise<LookupResult> {
      try {
        const checked = checkNumber(options.scac, numberTypes, numberType, number);
        if (!checked.ok) return checked.result;
        const asked = referenceQueries(options.scac, numberType, checked.number, requires, context);
        if (!asked.ok) return asked.result;
        const r = await askEach(asked.queries, (filters) => options.client.fetchByFilters(filters, signal));
        return r.kind === 'found' ? { kind: 'found', snapshot: dcsaSnapshot(r.events) } : r;
      } catch (err) {
        return crashed(err);
      }
    },
  };
}
