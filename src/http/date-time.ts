// Strict ISO 8601 / RFC 3339 date-times for request input. `new Date(raw)` rolls 2024-02-30 over
// to March and accepts year 0 or six-digit years, which PostgreSQL then refuses (a 500); here a
// value is a real calendar date with a year 0001-9999 whose instant also lies in that range.

const RE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|([+-])(\d{2}):?(\d{2}))?)?$/;

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z: what both engines store and compare. */
const MIN_MS = Date.parse('0001-01-01T00:00:00Z');
const MAX_MS = Date.parse('9999-12-31T23:59:59.999Z');

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export interface DateTimeOptions {
  /** Require a time and a zone (RFC 3339 date-time, as in JSON bodies). */
  requireTime?: boolean;
}

/**
 * The instant of a strict ISO 8601 date or date-time, or null. A value without a zone is UTC;
 * a date alone is its midnight UTC.
 */
export function parseDateTime(raw: string, opts: DateTimeOptions = {}): Date | null {
  const m = RE.exec(raw);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone, sign, zh, zm] = m;
  if (opts.requireTime && (h === undefined || zone === undefined)) return null;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = Number(h ?? 0);
  const minute = Number(mi ?? 0);
  const second = Number(s ?? 0);
  if (hour > 23 || minute > 59 || second > 59) return null;
  let offsetMin = 0;
  if (sign) {
    const oh = Number(zh);
    const om = Number(zm);
    if (oh > 23 || om > 59) return null;
    offsetMin = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0-99 to 1900-1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, Math.floor(Number(`0.${frac ?? '0'}`) * 1000));
  const ms = date.getTime() - offsetMin * 60_000;
  if (ms < MIN_MS || ms > MAX_MS) return null;
  return new Date(ms);
}

/** The Ajv `date-time` format: the same rules, time and zone required. */
export const dateTimeFormat = {
  type: 'string' as const,
  validate: (raw: string) => parseDateTime(raw, { requireTime: true }) !== null,
};
