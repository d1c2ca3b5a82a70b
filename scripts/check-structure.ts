/**
 * Structure rules of docs/architecture.md, checked by test/structure.test.ts (run by `npm run check`):
 * the top-level parts of src/ import each other without cycles, the named layer rules hold, Fastify
 * stays at the HTTP edge, no source file is over 400 lines, and only src/config.ts reads process.env.
 * Imports are read as text (static `from '…'` and dynamic `import('…')`); that is all the rules need.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_LINES = 400;

/** Parts that must not import the listed parts (beyond what the cycle rule already forbids). */
export const FORBIDDEN: Record<string, string[]> = {
  engine: ['carriers', 'terminals', 'sim', 'http', 'webhooks', 'console', 'mcp'],
  // Terminal adapters reuse the carriers' auth and rate budget; carriers know nothing of terminals.
  carriers: ['terminals'],
  webhooks: ['engine'],
  db: ['http'],
  worker: ['http'],
  util: ['http', 'db'],
};

/** Files and folders allowed to import fastify (the HTTP edge). */
// Route files: `routes.ts`, `<role>-routes.ts`, or anything under a `routes/` folder.
const FASTIFY_EDGE = [/^src\/app\.ts$/, /^src\/main\.ts$/, /^src\/http\//, /[/-]routes(\/|\.ts$)/, /^src\/console\//, /^src\/mcp\//];

export interface Report {
  cycles: string[][];
  forbidden: string[];
  fastify: string[];
  long: string[];
  env: string[];
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function partOf(rel: string): string | undefined {
  const [top, second] = rel.split('/');
  if (top !== 'src' || !second) return undefined;
  return second.replace(/\.ts$/, '');
}

export function checkStructure(root: string): Report {
  const files = walk(join(root, 'src'));
  const edges = new Map<string, Set<string>>();
  const report: Report = { cycles: [], forbidden: [], fastify: [], long: [], env: [] };
  for (const file of files) {
    const rel = relative(root, file).split(sep).join('/');
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) report.long.push(`${rel} (${lines} lines)`);
    if (rel !== 'src/config.ts' && /process\.env\b/.test(text)) report.env.push(rel);
    const from = partOf(rel)!;
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (spec === 'fastify' || spec.startsWith('@fastify/')) {
        if (!FASTIFY_EDGE.some((re) => re.test(rel))) report.fastify.push(`${rel} imports ${spec}`);
        continue;
      }
      if (!spec.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(file), spec)).split(sep).join('/');
      const to = target.startsWith('src/') ? partOf(target) : target.split('/')[0];
      if (!to || to === from) continue;
      if (FORBIDDEN[from]?.includes(to)) report.forbidden.push(`${rel} imports ${target} (${from} -> ${to})`);
      if (target.startsWith('src/')) {
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
      }
    }
  }
  report.cycles = findCycles(edges);
  return report;
}

/** Strongly connected components of more than one part (Tarjan), each one cycle to break. */
export function findCycles(edges: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!idx.has(v)) visit(v);
  return out;
}

export function problems(report: Report): string[] {
  return [
    ...report.cycles.map((c) => `cycle between top-level parts: ${c.join(', ')}`),
    ...report.forbidden.map((f) => `layer rule: ${f}`),
    ...report.fastify.map((f) => `fastify outside the HTTP edge: ${f}`),
    ...report.long.map((f) => `over ${MAX_LINES} lines: ${f}`),
    ...report.env.map((f) => `reads process.env (only src/config.ts may): ${f}`),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const found = problems(checkStructure(root));
  for (const p of found) console.error(p);
  console.log(found.length ? `${found.length} structure problem(s)` : 'structure: ok');
  process.exit(found.length ? 1 : 0);
}
