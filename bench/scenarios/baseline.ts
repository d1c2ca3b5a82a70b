import { type Ctx, httpScenario } from '../lib/context.ts';
import { freePort, startNode, waitForHttp } from '../lib/proc.ts';
import type { ScenarioResult } from '../lib/report.ts';

// The baseline every HTTP ratio divides by: bare Fastify "hello world" in its own process, loaded
// by the same autocannon child with the same connections and durations.

export async function baselineScenario(ctx: Ctx, id: string, name: string): Promise<ScenarioResult> {
  const port = await freePort();
  const proc = startNode('hello', ['bench/servers/hello.ts', '--port', String(port)]);
  try {
    await waitForHttp(`http://127.0.0.1:${port}/`, proc);
    const r = await httpScenario(ctx, {
      id,
      name,
      url: `http://127.0.0.1:${port}`,
      path: '/',
      pid: proc.pid,
    });
    r.goal = 'reference';
    return r;
  } finally {
    await proc.stop();
  }
}
