import type { AisProvider, VesselFix, VesselRef } from './ais.ts';
import type { LonLat } from './geo.ts';

// An AisProvider over an HTTP feed shaped like the carrier simulator's (docs/simulator.md):
// GET {base}/ais/positions/latest?imo=&at= and GET {base}/ais/positions?imo=&from=&to=. It runs on
// the request path, so every call has a short time-out, follows no redirect and never throws: a
// feed that is down, slow or odd answers "no fix" and the map falls back to the schedule estimate.
// A real AIS provider gets its own adapter behind the same interface.

export interface HttpAisOptions {
  /** Feed origin (plus optional path prefix), without a trailing slash. */
  baseUrl: string;
  /** Per-request time-out (default 2 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const MAX_BODY_CHARS = 2_000_000;

export function httpAis(options: HttpAisOptions): AisProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 2_000;
  const doFetch = options.fetch ?? fetch;

  async function getData(path: string, params: Record<string, string>): Promise<unknown> {
    try {
      const res = await doFetch(`${base}${path}?${new URLSearchParams(params)}`, {
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: { accept: 'application/json' },
      });
      if (res.status !== 200) {
        await res.body?.cancel();
        return null;
      }
      const text = await res.text();
      if (text.length > MAX_BODY_CHARS) return null;
      return (JSON.parse(text) as { data?: unknown }).data ?? null;
    } catch {
      return null;
    }
  }

  return {
    name: 'http',
    async latest(vessel: VesselRef, at: Date, maxAgeMs: number) {
      if (!vessel.imo) return null;
      const fix = toFix(await getData('/ais/positions/latest', { imo: vessel.imo, at: at.toISOString() }));
      if (!fix || fix.at > at || at.getTime() - fix.at.getTime() > maxAgeMs) return null;
      return fix;
    },
    async track(vessel: VesselRef, from: Date, to: Date) {
      if (!vessel.imo) return [];
      const data = await getData('/ais/positions', {
        imo: vessel.imo,
        from: from.toISOString(),
        to: to.toISOString(),
      });
      if (!Array.isArray(data)) return [];
      return data
        .map(toFix)
        .filter((f): f is VesselFix => f !== null && f.at >= from && f.at <= to)
        .sort((a, b) => a.at.getTime() - b.at.getTime());
    },
  };
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** One feed position as a VesselFix, or null when any required part is missing or out of range. */
function toFix(raw: unknown): VesselFix | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  if (!finite(r['lon']) || !finite(r['lat']) || typeof r['at'] !== 'string') return null;
  if (Math.abs(r['lon']) > 180 || Math.abs(r['lat']) > 90) return null;
  const at = new Date(r['at']);
  if (Number.isNaN(at.getTime())) return null;
  const point: LonLat = [r['lon'], r['lat']];
  return {
    point,
    at,
    heading: finite(r['heading']) && r['heading'] >= 0 && r['heading'] < 360 ? r['heading'] : null,
    speedKnots: finite(r['speed_knots']) && r['speed_knots'] >= 0 ? r['speed_knots'] : null,
  };
}
