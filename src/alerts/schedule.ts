// When a daily digest is due: the next instant after `now` at which the wall clock of `timeZone`
// shows `dailyAt` (HH:MM). Pure: the clock comes in as an argument, so tests move it at will.
// On a day whose DST change skips that time, the digest goes at the same UTC offset as before the
// change (one hour later by the wall clock); on a day that repeats it, at its first occurrence.

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

const formats = new Map<string, Intl.DateTimeFormat>();

function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(tz, f);
  }
  return f;
}

/** The wall clock of `tz` at `t`, as the UTC milliseconds of the same calendar reading. */
function wallClock(t: number, tz: string): number {
  const parts = Object.fromEntries(
    format(tz)
      .formatToParts(new Date(t))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
}

/** The instant whose wall clock in `tz` reads `local` (UTC milliseconds of that reading). */
function instantOf(local: number, tz: string): number {
  const first = local - (wallClock(local, tz) - local);
  // A second pass corrects the offset when the guess fell on the other side of a DST change.
  return local - (wallClock(first, tz) - first);
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
