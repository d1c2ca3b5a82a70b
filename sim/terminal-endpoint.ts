import { json, type Reply } from './dcsa-http.ts';
import { lookupTerminal } from './terminal-lookup.ts';

// GET /terminal/v1/facilities/{smdg}/containers/{number}: the simulated terminal system at each
// journey's port of discharge (docs/simulator.md, "Terminal feed"). 200 with the box's terminal
// status, 404 when that terminal does not know the box.

const PATH = /^\/terminal\/v1\/facilities\/([A-Za-z0-9-]{1,10})\/containers\/([A-Za-z0-9]{4,15})$/;

export function answerTerminal(
  method: string,
  path: string,
  clock: { nowMs(): number; epoch: Date },
): Reply | undefined {
  const m = PATH.exec(path);
  if (!m) return undefined;
  if (method !== 'GET') return json(405, { error: 'only GET' }, { allow: 'GET' });
  const answer = lookupTerminal(decodeURIComponent(m[2]!), decodeURIComponent(m[1]!), {
    now: clock.nowMs(),
    epoch: clock.epoch,
  });
  return answer
    ? json(200, answer)
    : json(404, { error: 'container not known at this terminal', facility: m[1], container: m[2] });
}
