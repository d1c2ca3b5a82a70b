import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Summary of a V8 .cpuprofile (node --cpu-prof): self time per function and per module.

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

export interface ProfileSummary {
  file: string;
  /** Busy (non-idle) time sampled. */
  totalMs: number;
  functions: Array<{ name: string; selfMs: number; share: number }>;
  modules: Array<{ name: string; selfMs: number; share: number }>;
}

function moduleOf(url: string): string {
  if (!url) return '(native / V8)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return url;
  const src = url.indexOf('/src/');
  return src >= 0 ? url.slice(src + 1) : url;
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as {
    nodes: Node[];
    startTime: number;
    endTime: number;
    samples: number[];
  };
  const perSample = (p.endTime - p.startTime) / 1000 / Math.max(1, p.samples.length);
  const byFn = new Map<string, number>();
  const byModule = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const ms = (n.hitCount ?? 0) * perSample;
    // Shares are of the time the process was busy.
    if (!ms || n.callFrame.functionName === '(idle)') continue;
    total += ms;
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${moduleOf(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    byFn.set(name, (byFn.get(name) ?? 0) + ms);
    const m = f.functionName === '(garbage collector)' ? '(gc)' : moduleOf(f.url);
    byModule.set(m, (byModule.get(m) ?? 0) + ms);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, selfMs]) => ({ name, selfMs: Math.round(selfMs), share: selfMs / total }));
  return { file, totalMs: Math.round(total), functions: rank(byFn), modules: rank(byModule) };
}

export function latestProfile(dir: string): string | null {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  return files.length ? join(dir, files[files.length - 1]!) : null;
}
