import type { LoadSpec, LoadSummary } from '../load/autocannon-child.ts';
import { startNode } from './proc.ts';

export type { LoadSpec, LoadSummary };

/** Runs autocannon in a child process against `spec` and returns the measured (and warm-up) summary. */
export async function runLoad(
  spec: LoadSpec,
): Promise<{ measured: LoadSummary; warmup: LoadSummary | null }> {
  const child = startNode('autocannon', ['bench/load/autocannon-child.ts', JSON.stringify(spec)]);
  const limitMs = (spec.warmupS + spec.durationS) * 3000 + 60_000;
  const timer = setTimeout(() => void child.stop(1000), limitMs);
  const code = await child.exited;
  clearTimeout(timer);
  await child.stop();
  const line = child
    .output()
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"warmup"'));
  if (code !== 0 || !line)
    throw new Error(`load generator failed (exit ${code}):\n${child.output().slice(-3000)}`);
  return JSON.parse(line);
}
