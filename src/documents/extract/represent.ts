import { type DocumentType, TRANSPORT_TYPES } from './classify.ts';
import { extractInvoice, extractPackingList } from './commercial.ts';
import type { Line } from './layout.ts';
import { containerNumbersIn } from './numbers.ts';
import { currentSchemaVersion } from './schemas.ts';
import { extractTransport } from './transport.ts';

// From lines of text and a type to the representation: the payload (plain, valid against the
// type's schema), per-field confidences beside it, and the numbers that link it to shipments.

export interface Representation {
  schema_version: string;
  payload: Record<string, unknown>;
  field_confidence: Record<string, number>;
  /** B/L, booking and container numbers (normalized) found in the document. */
  link_numbers: string[];
  /** What auto-tracking needs: the number to track and the carrier, when the document has both. */
  trackable: { scac: string; number: string; type: 'bill_of_lading' | 'booking_number' } | null;
}

export function represent(type: DocumentType, lines: Line[]): Representation {
  const schema_version = currentSchemaVersion(type);
  if (TRANSPORT_TYPES.includes(type)) {
    const { payload, confidence } = extractTransport(lines);
    const links = [
      payload.bill_of_lading_number,
      payload.booking_number,
      ...payload.containers.map((c) => c.number),
    ].filter((n): n is string => !!n);
    const number = payload.bill_of_lading_number ?? payload.booking_number;
    return {
      schema_version,
      payload: payload as unknown as Record<string, unknown>,
      field_confidence: confidence,
      link_numbers: [...new Set(links)],
      trackable:
        number && payload.scac
          ? {
              scac: payload.scac,
              number,
              type: payload.bill_of_lading_number ? 'bill_of_lading' : 'booking_number',
            }
          : null,
    };
  }
  if (type === 'commercial_invoice' || type === 'packing_list') {
    const { payload, confidence } =
      type === 'commercial_invoice' ? extractInvoice(lines) : extractPackingList(lines);
    const links = [payload.bill_of_lading_number, ...payload.container_numbers].filter(
      (n): n is string => !!n,
    );
    return {
      schema_version,
      payload: payload as unknown as Record<string, unknown>,
      field_confidence: confidence,
      link_numbers: [...new Set(links)],
      trackable: null,
    };
  }
  const text = lines.map((l) => l.text).join('\n');
  const containers = containerNumbersIn(text);
  return {
    schema_version,
    payload: {
      title: lines[0]?.text ?? null,
      text_excerpt: text ? text.slice(0, 500) : null,
      container_numbers: containers,
    },
    field_confidence: {},
    link_numbers: containers,
    trackable: null,
  };
}
