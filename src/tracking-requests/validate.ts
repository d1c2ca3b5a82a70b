import { SANDBOX_TEST_NUMBERS } from '../carriers/sandbox.ts';
import type { NumberType } from '../carriers/types.ts';
import { ApiError, type ErrorObject } from '../errors.ts';
import { shippingLineByScac } from '../reference/data.ts';
import { checkContainerNumber } from '../util/iso6346.ts';

export interface CreateInput {
  request_type: NumberType;
  request_number: string;
  /** Null with auto_detect_vocc_scac: the engine infers it (src/engine/detect-scac.ts). */
  scac: string | null;
  ref_numbers: string[];
  shipment_tags: string[];
  /** The customer party (issue 13), resolved by src/parties before the insert. */
  customer_id?: string | null;
  /** Staged custom field values (issue 13), checked by src/custom-fields/initial.ts. */
  initial_custom_fields?: unknown;
}

const TYPE_SUPPORT = {
  bill_of_lading: ['bill_of_lading_tracking_support', 'bill of lading'],
  booking_number: ['booking_number_tracking_support', 'booking number'],
  container: ['container_number_tracking_support', 'container number'],
} as const;

/** Trimmed, upper-cased, inner white space removed: the form we store and query carriers with. */
export function normalizeNumber(raw: string): string {
  return raw.replace(/\s+/g, '').toUpperCase();
}

// Carrier references are at most 35 characters in DCSA (carrierBookingReference); we allow
// letters, digits and the separators carriers print.
const REFERENCE_RE = /^[A-Z0-9][A-Z0-9\-/._]{0,34}$/;

const P = '/data/attributes';

/** Business validation after the schema check: number format, known line, supported type. */
export function validateCreate(attrs: {
  request_type: NumberType;
  request_number: string;
  scac?: string;
  auto_detect_vocc_scac?: boolean;
  ref_numbers?: string[];
  shipment_tags?: string[];
}): CreateInput {
  const errors: Array<Omit<ErrorObject, 'status' | 'title'>> = [];
  const number = normalizeNumber(attrs.request_number);
  if (number === '') {
    errors.push({
      source: { pointer: `${P}/request_number` },
      detail: "Request number can't be blank",
      code: 'blank',
    });
  } else if (attrs.request_type === 'container' && !SANDBOX_TEST_NUMBERS.has(number)) {
    const check = checkContainerNumber(number);
    if (!check.ok) {
      errors.push({
        source: { pointer: `${P}/request_number` },
        detail:
          check.reason === 'format'
            ? `Request number '${number}' is not a container number (ISO 6346: 3-letter owner code, category U, J or Z, then 7 digits).`
            : `Request number '${number}' fails the ISO 6346 check digit (expected ${check.expected} as the last digit).`,
        code: 'invalid_number',
      });
    }
  } else if (!REFERENCE_RE.test(number)) {
    errors.push({
      source: { pointer: `${P}/request_number` },
      detail: `Request number '${number}' must be 1 to 35 letters, digits or - / . _`,
      code: 'invalid_number',
    });
  }

  const scacRaw = (attrs.scac ?? '').trim().toUpperCase();
  const line = scacRaw === '' ? undefined : shippingLineByScac(scacRaw);
  // issue 13: without a SCAC, auto_detect_vocc_scac leaves it to the engine.
  const detect = scacRaw === '' && attrs.auto_detect_vocc_scac === true;
  if (detect) {
    // nothing to check yet
  } else if (scacRaw === '') {
    errors.push({ source: { pointer: `${P}/scac` }, detail: "Scac can't be blank", code: 'blank' });
  } else if (!line) {
    errors.push({
      source: { pointer: `${P}/scac` },
      detail: `Scac '${scacRaw}' is not recognized`,
      code: 'unknown_scac',
    });
  } else {
    const [flag, label] = TYPE_SUPPORT[attrs.request_type];
    if (!line[flag]) {
      errors.push({
        source: { pointer: `${P}/request_type` },
        detail: `${line.name} (${line.scac}) does not support ${label} tracking.`,
        code: 'unsupported_request_type',
      });
    }
  }
  for (const key of ['ref_numbers', 'shipment_tags'] as const) {
    const values = attrs[key] ?? [];
    values.forEach((v, i) => {
      if (v.trim() === '') {
        errors.push({
          source: { pointer: `${P}/${key}/${i}` },
          detail: `${key} entries can't be blank`,
          code: 'blank',
        });
      }
    });
  }
  if (errors.length) throw new ApiError(422, errors);
  return {
    request_type: attrs.request_type,
    request_number: number,
    scac: detect ? null : line!.scac,
    ref_numbers: dedupe(attrs.ref_numbers ?? []),
    shipment_tags: dedupe(attrs.shipment_tags ?? []),
  };
}

function dedupe(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()))];
}
