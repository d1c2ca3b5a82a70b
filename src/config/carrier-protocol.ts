// The per-carrier protocol differences of a CARRIERS_CONFIG entry (CARRIER-NOTES §8): what a
// carrier does differently from the DCSA standard is configuration, not code. Every field is
// optional; the defaults are the standard's for the entry's adapter (PROTOCOL_DEFAULTS).

/** The carrier protocols an entry of CARRIERS_CONFIG may name. */
export const SUPPORTED_ADAPTERS = ['dcsa-tnt-v2', 'dcsa-tnt-v3'] as const;
export type AdapterName = (typeof SUPPORTED_ADAPTERS)[number];

/** A value as quoted in a config problem, cut short. */
export const show = (v: unknown): string => {
  const s = JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 60 ? `${s.slice(0, 57)}...` : s;
};

/** A non-2xx answer that means "this carrier does not know the number". */
export interface NotFoundRule {
  status: number;
  /** When set, only answers whose error reason or message contains this text (any case). */
  reason?: string;
}

/** Number types a carrier may answer only together with an equipment reference (a container). */
export const WITH_EQUIPMENT_TYPES = ['booking_number', 'bill_of_lading'] as const;
export type WithEquipmentType = (typeof WITH_EQUIPMENT_TYPES)[number];

export interface CarrierProtocol {
  /** Sent as the API-Version header. */
  api_version: string;
  /** Response header that names the next page. */
  paging_header: string;
  /** Answers that mean "not found", besides an empty list (always not found). */
  not_found: NotFoundRule[];
  /** Refreshes ask only for what changed since the last answer (3.0.0 eventUpdatedDateTimeMin). */
  updated_since: boolean;
  /** With updated_since, a full read at least this often per number. */
  full_read_interval_ms: number;
  /**
   * Number types the carrier looks up only together with an equipmentReference (HMM wants a
   * booking and a container): each look-up asks once per container number known for the request.
   */
  requires_equipment: WithEquipmentType[];
}

export const PROTOCOL_KEYS = [
  'api_version',
  'paging_header',
  'not_found',
  'updated_since',
  'full_read_interval_ms',
  'requires_equipment',
] as const;

export const PROTOCOL_DEFAULTS: Record<AdapterName, CarrierProtocol> = {
  'dcsa-tnt-v2': {
    api_version: '2',
    paging_header: 'Next-Page',
    not_found: [{ status: 404 }, { status: 400 }],
    updated_since: false,
    full_read_interval_ms: 0,
    requires_equipment: [],
  },
  // 3.0.0 answers an unknown reference with {events: []}; a 404 is read the same way because
  // some carriers still send one. A 400 is a query the carrier refused: a failure, not "unknown".
  'dcsa-tnt-v3': {
    api_version: '3.0.0',
    paging_header: 'Next-Page-Cursor',
    not_found: [{ status: 404 }],
    updated_since: true,
    full_read_interval_ms: 6 * 3600_000,
    requires_equipment: [],
  },
};

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_INTERVAL_MS = 30 * 24 * 3600_000;

/** `"404"`, `"400"` or `"400: reason text"`. */
function notFoundRule(v: unknown, path: string, problems: string[]): NotFoundRule | null {
  const m = typeof v === 'string' ? /^\s*([1-5]\d\d)\s*(?::\s*(.*?)\s*)?$/.exec(v) : null;
  if (!m || Number(m[1]) < 300) {
    problems.push(
      `${path}: must be an HTTP status from 300 to 599, optionally "status: reason text", got ${show(v)}`,
    );
    return null;
  }
  return m[2] ? { status: Number(m[1]), reason: m[2] } : { status: Number(m[1]) };
}

/** Validates the protocol fields of one entry (already checked for unknown keys). */
export function validateProtocol(
  raw: Record<string, unknown>,
  adapter: AdapterName,
  label: string,
  problems: string[],
): CarrierProtocol {
  const p: CarrierProtocol = { ...PROTOCOL_DEFAULTS[adapter] };
  if (raw.api_version !== undefined) {
    if (typeof raw.api_version === 'string' && /^[0-9A-Za-z.+-]{1,30}$/.test(raw.api_version))
      p.api_version = raw.api_version;
    else
      problems.push(
        `${label}.api_version: must be a version string such as "3.0.0", got ${show(raw.api_version)}`,
      );
  }
  if (raw.paging_header !== undefined) {
    if (typeof raw.paging_header === 'string' && HEADER_NAME.test(raw.paging_header))
      p.paging_header = raw.paging_header;
    else problems.push(`${label}.paging_header: must be a header name, got ${show(raw.paging_header)}`);
  }
  if (raw.not_found !== undefined) {
    if (!Array.isArray(raw.not_found))
      problems.push(`${label}.not_found: must be a list such as ["404", "400: unknown reference"]`);
    else {
      p.not_found = raw.not_found
        .map((v, i) => notFoundRule(v, `${label}.not_found[${i}]`, problems))
        .filter((r): r is NotFoundRule => r !== null);
    }
  }
  if (raw.updated_since !== undefined) {
    if (typeof raw.updated_since === 'boolean') p.updated_since = raw.updated_since;
    else problems.push(`${label}.updated_since: must be true or false, got ${show(raw.updated_since)}`);
  }
  if (raw.full_read_interval_ms !== undefined) {
    const v = raw.full_read_interval_ms;
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_INTERVAL_MS)
      p.full_read_interval_ms = v;
    else
      problems.push(
        `${label}.full_read_interval_ms: must be an integer from 0 to ${MAX_INTERVAL_MS}, got ${show(v)}`,
      );
  }
  if (raw.requires_equipment !== undefined) {
    const v = raw.requires_equipment;
    const ok = Array.isArray(v) && v.every((t) => WITH_EQUIPMENT_TYPES.includes(t as WithEquipmentType));
    if (ok) p.requires_equipment = [...new Set(v as WithEquipmentType[])];
    else
      problems.push(
        `${label}.requires_equipment: must be a list of ${WITH_EQUIPMENT_TYPES.join(', ')}, got ${show(v)}`,
      );
  }
  if (p.updated_since && adapter !== 'dcsa-tnt-v3')
    problems.push(`${label}.updated_since: only the dcsa-tnt-v3 adapter can ask for changes since a time`);
  return p;
}

/** Whether an answer is "not found" under these rules; `reason` is the error body's reason. */
export function isNotFound(rules: readonly NotFoundRule[], status: number, reason: string | null): boolean {
  return rules.some(
    (r) =>
      r.status === status &&
      (r.reason === undefined || (reason ?? '').toLowerCase().includes(r.reason.toLowerCase())),
  );
}
