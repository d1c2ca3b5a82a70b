import { freePort, type Spawned, spawnNode } from './process.ts';

/** The carrier simulator as a separate process, as users run it. */
export async function spawnSimulator(args: string[] = []): Promise<{
  url: string;
  proc: Spawned;
  advance(days: number): Promise<void>;
  close(): Promise<void>;
}> {
  const port = await freePort();
  const proc = spawnNode(['sim/main.ts', '--port', String(port), '--flaky-hang-ms', '2000', ...args], {});
  await proc.waitFor(/carrier simulator: /);
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    proc,
    async advance(days) {
      const res = await fetch(`${url}/control/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ days }),
      });
      if (!res.ok) throw new Error(`advance failed: ${res.status}`);
    },
    async close() {
      proc.kill('SIGTERM');
      await proc.exited;
    },
  };
}
