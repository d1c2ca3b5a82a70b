// Infers what a tracking number is and which shipping line issued it. Pure: reference data in,
// a prediction out. Rules, in order:
//  1. Container-shaped (ISO 6346: 3 letters, U/J/Z/R, 7 digits) -> a container number; the owner
//     prefix (first four letters) names the line when a line owns that prefix.
//  2. Otherwise a shipment number. A known bill-of-lading prefix or the line's SCAC (or one of its
//     alternative SCACs) at the start names the line: "MEDU..." -> MSCU, "MAEU..." -> MAEU.
//     The longest matching prefix wins; lines sharing it split the confidence.
//  3. All digits with no prefix: a booking number (carriers print bookings as plain numbers).
//     Letters and digits with no known prefix: a bill of lading, line unknown.

import { checkContainerNumber, hasContainerShape } from '../util/iso6346.ts';
import type { ShippingLine } from './data.ts';

export type InferNumberType = 'container' | 'bill_of_lading' | 'booking';

export interface Candidate {
  scac: string;
  name: string;
  confidence: number;
}

export interface Inference {
  /** The number as we read it (upper case, white space removed). */
  number: string;
  number_type: InferNumberType;
  /** The matching `request_type` for POST /tracking_requests. */
  request_type: 'container' | 'bill_of_lading' | 'booking_number';
  validation: {
    is_valid: boolean | null;
    type: 'container' | 'shipment';
    check_digit_passed: boolean | null;
    parsed_number: string | null;
    reason: string | null;
  };
  shipping_line: {
    decision: 'auto_select' | 'needs_confirmation' | 'no_prediction';
    selected: Candidate | null;
    candidates: Candidate[];
  };
}

export type InferOutcome =
  | { ok: true; value: Inference }
  | { ok: false; code: 'blank' | 'invalid_number'; detail: string };

/** Above this a single candidate is selected automatically. */
const AUTO_SELECT = 0.8;

const SEPARATORS = /[\s\-/._]+/g;
const REFERENCE_RE = /^[A-Z0-9][A-Z0-9\-/._]{2,34}$/;

function candidate(line: ShippingLine, confidence: number): Candidate {
  return { scac: line.scac, name: line.name, confidence: Math.round(confidence * 100) / 100 };
}

function decide(candidates: Candidate[]): Inference['shipping_line'] {
  const sorted = [...candidates].sort((a, b) => b.confidence - a.confidence || a.scac.localeCompare(b.scac));
  const top = sorted[0] ?? null;
  if (!top) return { decision: 'no_prediction', selected: null, candidates: [] };
  const decision =
    sorted.length === 1 && top.confidence >= AUTO_SELECT ? 'auto_select' : 'needs_confirmation';
  return { decision, selected: top, candidates: sorted };
}

function inferContainer(number: string, lines: ShippingLine[]): Inference {
  const check = checkContainerNumber(number);
  const passed = check.ok;
  const owner = number.slice(0, 4);
  const owners = lines.filter((l) => l.container_prefixes.includes(owner));
  // A passing check digit makes the owner prefix trustworthy; a failing one may be a typo anywhere.
  const base = passed ? 0.95 : 0.5;
  return {
    number,
    number_type: 'container',
    request_type: 'container',
    validation: {
      is_valid: passed,
      type: 'container',
      check_digit_passed: passed,
      parsed_number: number,
      reason: check.ok
        ? null
        : `The ISO 6346 check digit does not match (expected ${check.expected} as the last digit).`,
    },
    shipping_line: decide(owners.map((l) => candidate(l, base / owners.length))),
  };
}

/** Lines whose BL prefix, SCAC or alternative SCAC starts the number, longest prefix first. */
function prefixMatches(
  number: string,
  lines: ShippingLine[],
): { prefix: string; lines: ShippingLine[] } | null {
  let best: { prefix: string; lines: ShippingLine[] } | null = null;
  for (const line of lines) {
    const prefixes = new Set([...line.bol_prefixes, line.scac, ...line.alternative_scacs]);
    for (const p of prefixes) {
      if (!p || number.length <= p.length || !number.startsWith(p)) continue;
      if (!best || p.length > best.prefix.length) best = { prefix: p, lines: [line] };
      else if (p.length === best.prefix.length && p === best.prefix && !best.lines.includes(line))
        best.lines.push(line);
    }
  }
  return best;
}

function inferShipment(number: string, lines: ShippingLine[]): Inference {
  const valid = REFERENCE_RE.test(number);
  const match = prefixMatches(number, lines);
  const digitsOnly = /^\d+$/.test(number);
  const numberType: InferNumberType = match || !digitsOnly ? 'bill_of_lading' : 'booking';
  const candidates = match ? match.lines.map((l) => candidate(l, 0.9 / match.lines.length)) : [];
  return {
    number,
    number_type: numberType,
    request_type: numberType === 'booking' ? 'booking_number' : 'bill_of_lading',
    validation: {
      is_valid: valid,
      type: 'shipment',
      check_digit_passed: null,
      parsed_number: number,
      reason: valid ? null : 'A shipment number is 3 to 35 letters, digits or - / . _',
    },
    shipping_line: decide(candidates),
  };
}

/** Infers the number type and the shipping line of `raw` against the given lines. */
export function inferNumber(raw: string, lines: ShippingLine[]): InferOutcome {
  const number = raw.replace(/\s+/g, '').toUpperCase();
  if (number === '') return { ok: false, code: 'blank', detail: "Number can't be blank." };
  if (number.length > 35) {
    return { ok: false, code: 'invalid_number', detail: 'A tracking number is at most 35 characters.' };
  }
  if (!/^[A-Z0-9\-/._]+$/.test(number)) {
    return {
      ok: false,
      code: 'invalid_number',
      detail: `'${raw.trim().slice(0, 40)}' is not a tracking number: use letters, digits and - / . _ only.`,
    };
  }
  const compact = number.replace(SEPARATORS, '');
  if (compact.length < 3) {
    return {
      ok: false,
      code: 'invalid_number',
      detail: 'A tracking number has at least 3 letters or digits.',
    };
  }
  if (hasContainerShape(compact)) return { ok: true, value: inferContainer(compact, lines) };
  const value = inferShipment(number, lines);
  if (!/\d/.test(number) && value.shipping_line.candidates.length === 0) {
    return {
      ok: false,
      code: 'invalid_number',
      detail: `'${number}' has no digits and no known carrier prefix: it does not look like a tracking number.`,
    };
  }
  return { ok: true, value };
}
