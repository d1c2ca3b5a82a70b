// DCSA eventDateTime is local time with the location's offset ("2026-01-02T11:04:00+08:00");
// eventCreatedDateTime is server metadata, so UTC. Offsets come from the port's IANA zone.

const formatters = new Map<string, Intl.DateTimeFormat>();

// Offsets only change on the hour (DST), so one Intl call per zone and hour is enough.
const offsets = new Map<string, number>();

function offsetMinutes(ms: number, timeZone: string): number {
  const key = `${timeZone}@${Math.floor(ms / 3_600_000)}`;
  let off = offsets.get(key);
  if (off === undefined) {
    if (offsets.size > 100_000) offsets.clear();
    off = computeOffset(ms, timeZone);
    offsets.set(key, off);
  }
  return off;
}

function computeOffset(ms: number, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formatters.set(timeZone, f);
  }
  const name = f.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  if (!m) return 0;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** ISO 8601 local time with offset, to the second. */
export function localIso(ms: number, timeZone: string): string {
  const off = offsetMinutes(ms, timeZone);
  const local = new Date(ms + off * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(off);
  const sign = off < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** ISO 8601 UTC, to the second. */
export function utcIso(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19) + 'Z';
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
