import { zoneOffsetMs } from '../util/zone-offset.ts';

// Lenient timestamp parsing for carrier data. Carriers send ISO 8601 with an offset (the
// standard), but also values with no offset, date-only values, a space instead of `T`, odd
// offset spellings and `Z` on what is really local time (CARRIER-NOTES §6). Pure functions.

export interface ParsedTime {
  /** ISO 8601 UTC with milliseconds ("2026-01-02T03:04:05.000Z"). */
  iso: string;
  ms: number;
  /** true when the value had no offset and was read in the location's zone (or UTC). */
  inferredZone: boolean;
}

export interface ParseTimeOptions {
  /** Carrier quirk: read a trailing `Z` as "local time at the location", not UTC. */
  zuluIsLocal?: boolean;
}

const ISO_RE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;

// Outside this range a value is garbage, not a date (and Date would misbehave near its limits).
const MIN_YEAR = 1900;
const MAX_YEAR = 2999;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses a carrier timestamp. Offsets are honoured; a value without an offset is wall-clock time
 * at the location (`zone`, an IANA name) or UTC when the zone is unknown, and is flagged.
 * Returns null for anything that is not a plausible timestamp. Never throws.
 */
export function parseTimestamp(
  value: unknown,
  zone: string | null,
  options?: ParseTimeOptions,
): ParsedTime | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  if (text.length < 8 || text.length > 40) return null;
  const m = ISO_RE.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = m[4] === undefined ? 0 : Number(m[4]);
  const minute = m[5] === undefined ? 0 : Number(m[5]);
  // A leap second (":60") is clamped rather than rejected.
  const second = m[6] === undefined ? 0 : Math.min(Number(m[6]), 59);
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  if (year < MIN_YEAR || year > MAX_YEAR || month < 1 || month > 12) return null;
  if (day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59) return null;
  const wall = Date.UTC(year, month - 1, day, hour, minute, second, millis);

  let offsetText = m[8];
  if (offsetText !== undefined && /^(z|utc|gmt)$/i.test(offsetText)) {
    if (options?.zuluIsLocal) offsetText = undefined;
    else return toParsed(wall, false);
  }
  if (offsetText !== undefined) {
    const sign = offsetText.startsWith('-') ? -1 : 1;
    const digits = offsetText.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 18 || om > 59) return null;
    return toParsed(wall - sign * (oh * 60 + om) * 60_000, false);
  }
  return toParsed(zone ? localToUtc(wall, zone) : wall, true);
}

function toParsed(ms: number, inferredZone: boolean): ParsedTime | null {
  if (!Number.isFinite(ms)) return null;
  return { iso: new Date(ms).toISOString(), ms, inferredZone };
}

/**
 * Converts a wall-clock time (given as if it were UTC) in `zone` to the UTC instant. Two passes
 * settle DST transitions: in a spring-forward gap the later offset wins, in the fall-back
 * overlap the first occurrence does. Deterministic either way.
 */
export function localToUtc(wallMs: number, zone: string): number {
  const first = zoneOffsetMs(wallMs, zone);
  const guess = wallMs - first;
  const second = zoneOffsetMs(guess, zone);
  return second === first ? guess : wallMs - second;
}
