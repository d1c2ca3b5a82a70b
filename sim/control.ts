import type { SimClock } from './clock.ts';
import { json, type Reply } from './dcsa-http.ts';
import { scenarioTable } from './scenarios.ts';

// Control endpoints (not DCSA): read and steer the simulated clock, read request statistics.

export interface SimulatorStats {
  total: number;
  byPath: Record<string, number>;
  /** /v2/events requests per reference value (upper-cased). SIMFLAKY failures follow this count. */
  byNumber: Record<string, number>;
  byStatus: Record<string, number>;
  tokensIssued: number;
}

const clockView = (clock: SimClock) => ({
  now: clock.now().toISOString(),
  epoch: clock.epoch.toISOString(),
  speed: clock.speed(),
});

const UNITS_MS: Record<string, number> = {
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
};

export function answerControl(
  method: string,
  path: string,
  body: unknown,
  clock: SimClock,
  stats: { read(): SimulatorStats; reset(): void },
): Reply | undefined {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const bad = (message: string) => json(400, { error: message });
  switch (`${method} ${path}`) {
    case 'GET /control/clock':
      return json(200, clockView(clock));
    case 'POST /control/advance': {
      let ms = 0;
      let given = false;
      for (const [unit, factor] of Object.entries(UNITS_MS)) {
        const v = input[unit];
        if (v === undefined) continue;
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
          return bad(`${unit} must be a number >= 0`);
        ms += v * factor;
        given = true;
      }
      if (!given) return bad('give seconds, minutes, hours or days');
      clock.advance(ms);
      return json(200, clockView(clock));
    }
    case 'POST /control/speed': {
      const speed = input['speed'];
      if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < 0)
        return bad('speed must be a number >= 0');
      clock.setSpeed(speed);
      return json(200, clockView(clock));
    }
    case 'GET /control/stats':
      return json(200, stats.read());
    case 'DELETE /control/stats':
      stats.reset();
      return json(200, stats.read());
    case 'GET /control/scenarios':
      return json(200, scenarioTable());
    default:
      return undefined;
  }
}
