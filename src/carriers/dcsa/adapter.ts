// CarrierAdapter for carriers that publish DCSA T&T v2.2. Validates the number locally (so an
// obviously wrong number never costs a request from the carrier budget), then asks the client
// (the one I/O file) and reads its answer into a carrier snapshot (snapshot.ts, pure).

import { checkContainerNumber } from '../../util/iso6346.ts';
import type { CarrierAdapter, LookupResult, NumberType } from '../types.ts';
import type { DcsaClient, DcsaReferenceFilter } from './client.ts';
import { dcsaSnapshot } from './snapshot.ts';

export const DCSA_ADAPTER = 'dcsa-tnt-v2';

const FILTER: Record<NumberType, DcsaReferenceFilter> = {
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
}

export function createDcsaAdapter(options: DcsaAdapterOptions): CarrierAdapter {
  const numberTypes = [...options.numberTypes];
  return {
    scac: options.scac,
    numberTypes,
    async lookup(numberType, number, signal): Promise<LookupResult> {
      try {
        if (!numberTypes.includes(numberType)) {
          return {
            kind: 'permanent_failure',
            reason: 'invalid_number',
            detail: `${options.scac} does not support ${numberType} lookups`,
          };
        }
        const n = typeof number === 'string' ? normalizeNumber(numberType, number) : '';
        if (n === '' || n.length > MAX_LENGTH[numberType] || !/^[A-Z0-9\-_/.]+$/.test(n)) {
          return { kind: 'permanent_failure', reason: 'invalid_number', detail: `not a valid ${numberType}` };
        }
        if (numberType === 'container' && !isValidContainerNumber(n)) {
          return {
            kind: 'permanent_failure',
            reason: 'invalid_number',
            detail: 'not a valid ISO 6346 container number (format or check digit)',
          };
        }
        const r = await options.client.fetchEvents(FILTER[numberType], n, signal);
        return r.kind === 'found' ? { kind: 'found', snapshot: dcsaSnapshot(r.events) } : r;
      } catch (err) {
        return {
          kind: 'temporary_failure',
          reason: 'internal_processing_error',
          detail: String(err).slice(0, 300),
        };
      }
    },
  };
}
