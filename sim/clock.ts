// The simulated clock: sim time = epoch + real elapsed x speed + manual advances. Journeys are
// anchored to the epoch, so speeding the clock up (or advancing it) makes them unfold.

export interface SimClock {
  readonly epoch: Date;
  now(): Date;
  nowMs(): number;
  speed(): number;
  /** Move simulated time forward; negative values are refused (journeys never run backwards). */
  advance(ms: number): Date;
  setSpeed(speed: number): void;
}

export function createSimClock(options: { epoch?: Date | number | string; speed?: number } = {}): SimClock {
  const epochMs =
    options.epoch === undefined
      ? Math.floor(Date.now() / 60_000) * 60_000
      : new Date(options.epoch).getTime();
  if (Number.isNaN(epochMs)) throw new Error(`invalid epoch: ${String(options.epoch)}`);
  let speed = checkSpeed(options.speed ?? 1);
  // Rebased on every speed change so that changing speed never makes time jump.
  let baseSim = epochMs;
  let baseReal = performance.now();
  const nowMs = () => baseSim + (performance.now() - baseReal) * speed;
  return {
    epoch: new Date(epochMs),
    nowMs: () => Math.floor(nowMs()),
    now: () => new Date(Math.floor(nowMs())),
    speed: () => speed,
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance must be a non-negative number');
      baseSim += ms;
      return new Date(Math.floor(nowMs()));
    },
    setSpeed(next: number) {
      const at = nowMs();
      speed = checkSpeed(next);
      baseSim = at;
      baseReal = performance.now();
    },
  };
}

function checkSpeed(speed: number): number {
  if (!Number.isFinite(speed) || speed < 0) throw new RangeError('speed must be a non-negative number');
  return speed;
}
