// A time zone's UTC offset at an instant, from Intl (one formatter per zone, kept): the engine's
// local times of carriers' events and the alert digests' hours both read it.

const formatters = new Map<string, Intl.DateTimeFormat | null>();

function formatterFor(zone: string): Intl.DateTimeFormat | null {
  let f = formatters.get(zone);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      f = null; // unknown zone: callers fall back to UTC
    }
    // Bounded: zones come from reference data, but do not let odd input grow the cache forever.
    if (formatters.size < 1000) formatters.set(zone, f);
  }
  return f;
}

/** Offset of `zone` from UTC at instant `ms`, in milliseconds (0 for an unknown zone). */
export function zoneOffsetMs(ms: number, zone: string): number {
  const f = formatterFor(zone);
  if (!f) return 0;
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(ms))) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return asUtc - (ms - (((ms % 1000) + 1000) % 1000));
}
