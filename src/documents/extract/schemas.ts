import { DOCUMENT_TYPES, type DocumentType, TRANSPORT_TYPES } from './classify.ts';

// The document schemas: one JSON Schema per document type, versioned `<type>@<date>`. The
// extraction payload of a type validates against its current schema.

export const SCHEMA_DATE = '2026-11-20';
export const SCHEMA_ACTIVE_AT = '2026-11-20T00:00:00.000Z';

const str = { type: ['string', 'null'] };
const num = { type: ['number', 'null'] };
const date = { type: ['string', 'null'], format: 'date' };
const place = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['name', 'locode'],
  properties: {
    name: { type: 'string' },
    locode: { type: ['string', 'null'], pattern: '^[A-Z]{2}[A-Z2-9]{3}$' },
  },
};
const party = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['name', 'address'],
  properties: { name: { type: 'string' }, address: str },
};
const containerNumbers = { type: 'array', items: { type: 'string', pattern: '^[A-Z]{3}[UJZR][0-9]{7}$' } };

const obj = (properties: Record<string, unknown>) => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

const transport = obj({
  bill_of_lading_number: str,
  booking_number: str,
  scac: str,
  carrier_name: str,
  vessel_name: str,
  voyage_number: str,
  place_of_receipt: place,
  port_of_loading: place,
  port_of_discharge: place,
  place_of_delivery: place,
  shipper: party,
  consignee: party,
  notify_party: party,
  containers: {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['number', 'size_type', 'seal_numbers', 'gross_weight_kg'],
      properties: {
        number: {
          type: 'string',
          pattern: '^[A-Z]{3}[UJZR][0-9]{7}$',
          description: 'ISO 6346, check digit valid.',
        },
        size_type: str,
        seal_numbers: { type: 'array', items: { type: 'string' } },
        gross_weight_kg: num,
      },
    },
  },
  issue_date: date,
  shipped_on_board_date: date,
  estimated_departure_date: date,
  estimated_arrival_date: date,
});

const invoice = obj({
  invoice_number: str,
  invoice_date: date,
  currency: str,
  seller: party,
  buyer: party,
  lines: {
    type: 'array',
    items: obj({ description: { type: 'string' }, quantity: num, unit_price: num, amount: num }),
  },
  total_amount: num,
  bill_of_lading_number: str,
  container_numbers: containerNumbers,
});

const packing = obj({
  packing_list_number: str,
  date,
  shipper: party,
  consignee: party,
  lines: {
    type: 'array',
    items: obj({ description: { type: 'string' }, packages: num, gross_weight_kg: num }),
  },
  total_packages: num,
  total_gross_weight_kg: num,
  bill_of_lading_number: str,
  container_numbers: containerNumbers,
});

const other = obj({
  title: str,
  text_excerpt: str,
  container_numbers: containerNumbers,
});

export interface DocumentSchema {
  document_type: DocumentType;
  label: string;
  full_version: string;
  schema_payload: Record<string, unknown>;
}

export function schemaPayloadOf(type: DocumentType): Record<string, unknown> {
  if (TRANSPORT_TYPES.includes(type)) return transport;
  if (type === 'commercial_invoice') return invoice;
  if (type === 'packing_list') return packing;
  return other;
}

export const DOCUMENT_SCHEMAS: readonly DocumentSchema[] = DOCUMENT_TYPES.map((t) => ({
  document_type: t.code,
  label: t.label,
  full_version: `${t.code}@${SCHEMA_DATE}`,
  schema_payload: { title: t.label, ...schemaPayloadOf(t.code) },
}));

/** By full version id (`bill_of_lading@2026-11-20`) or by bare type (the current version). */
export function findSchema(id: string): DocumentSchema | undefined {
  return DOCUMENT_SCHEMAS.find((s) => s.full_version === id || s.document_type === id);
}

export function currentSchemaVersion(type: DocumentType): string {
  return `${type}@${SCHEMA_DATE}`;
}
