import { zoneOffsetMs } from '../util/zone-offset.ts';

// When a daily digest is due: the next instant after `now` at which the wall clock of `timeZone`
// shows `dailyAt` (HH:MM). Pure: the clock comes in as an argument, so tests move it at will.
// On a day whose DST change skips that time, the digest goes at the same UTC offset as before the
// change (later by the wall clock by the size of the jump, usually an hour); on a day that repeats
// it, at its first occurrence. So every local date has exactly one digest (test/alerts/schedule.test.ts).

/** Whether `tz` is a time zone name Intl knows (IANA names, e.g. Europe/Berlin, and UTC). */
export function isTimeZone(tz: string): boolean {
  if (tz.length === 0 || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of `tz` at `t` (to the second), as the UTC milliseconds of the same calendar reading. */
function wallClock(t: number, tz: string): number {
  return t - (((t % 1000) + 1000) % 1000) + zoneOffsetMs(t, tz);
}

const DAY = 86_400_000;

/** The UTC offset of `tz` at instant `t`, in milliseconds. */
const offset = (t: number, tz: string): number => wallClock(t, tz) - t;

/**
 * The instant whose wall clock in `tz` reads `local` (UTC milliseconds of that reading). The
 * offsets a day either side are the ones before and after any change that day (`local` read as UTC
 * is at most 14 hours from the instant sought, so both lie beyond it); each gives a candidate, and
 * the earliest that really shows `local` wins, so a repeated time answers its first occurrence. When
 * neither does, `local` was skipped: it is taken at the offset before the change, which the wall
 * clock shows later by the size of the jump. Guessing from the offset at `local` itself, as one
 * might, lands on the wrong side of the change: west of Greenwich, and on a change at midnight, it
 * answers the hour before the gap, a time of the day before.
 */
function instantOf(local: number, tz: string): number {
  const before = offset(local - DAY, tz);
  const after = offset(local + DAY, tz);
  const candidates = [local - before, local - after].sort((a, b) => a - b);
  return candidates.find((t) => wallClock(t, tz) === local) ?? local - before;
}

export function nextDigestAt(dailyAt: string, timeZone: string, now: Date): Date {
  const [h, m] = dailyAt.split(':').map(Number) as [number, number];
  const today = new Date(wallClock(now.getTime(), timeZone));
  for (let day = 0; day < 3; day++) {
    const local = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + day, h, m);
    const at = instantOf(local, timeZone);
    if (at > now.getTime()) return new Date(at);
  }
  throw new Error(`no next ${dailyAt} in ${timeZone} after ${now.toISOString()}`);
}
