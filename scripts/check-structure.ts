/**
 * Structure rules of docs/architecture.md, declared here once, checked by `npm run check` and by
 * test/structure.test.ts: the top-level parts of src/ import each other without cycles, no two
 * files of src/ and sim/ import each other (directly or round a longer circle), every IMPORT_RULES
 * entry holds, no source file is over 400 lines, and only src/config.ts reads process.env.
 * Imports are read as text (static `from '…'` and dynamic `import('…')`); that is all the rules need.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MAX_LINES = 400;

/** One import, as the rules read it. */
export interface Import {
  /** Repository-relative path for relative imports, else the bare specifier. */
  target: string;
  line: number;
}

export interface ImportRule {
  /** What the rule says, as a test's name. */
  name: string;
  /** The files it applies to (repository-relative). */
  files: (file: string) => boolean;
  /** True when `file` may not import `target`. */
  refuses: (target: string, file: string) => boolean;
}

const part = (path: string) => (path.startsWith('src/') ? path.split('/')[1]!.replace(/\.ts$/, '') : undefined);
const inParts = (parts: string[]) => (path: string) => parts.includes(part(path) ?? '');
const isFastify = (t: string) => t === 'fastify' || t.startsWith('@fastify/');
const isHttp = (t: string) => t.startsWith('src/http/') || isFastify(t);
const isSource = (t: string) => t.startsWith('src/') || t.startsWith('sim/');

/** Parts the engine may import: its own, storage and shared reference data, never a service. */
const ENGINE_SEES = ['engine', 'db', 'worker', 'domain-events', 'reference', 'util', 'config', 'errors'];
/** Files and folders allowed to import fastify (the HTTP edge). */
// Route files: `routes.ts`, `<role>-routes.ts`, or anything under a `routes/` folder.
const FASTIFY_EDGE = [/^src\/app\.ts$/, /^src\/main\.ts$/, /^src\/http\//, /[/-]routes(\/|\.ts$)/, /^src\/console\//, /^src\/mcp\//];
const SIM_SHARED = new Set(['src/reference/data.ts', 'src/util/uuid.ts', 'src/util/iso6346.ts']);

/** The import rules of docs/architecture.md, each declared once: the checker and the tests read these. */
export const IMPORT_RULES: ImportRule[] = [
  {
    name: 'src/engine imports only the engine, storage, the worker, domain events, reference data and utilities (no adapter, simulator, HTTP, webhook, route code or service)',
    files: (f) => f.startsWith('src/engine/'),
    refuses: (t) => isFastify(t) || (isSource(t) && !inParts(ENGINE_SEES)(t)),
  },
  {
    name: 'adapters see the engine only through its carrier port and snapshot types; carriers do not import terminals',
    files: (f) => f.startsWith('src/carriers/'),
    refuses: (t) =>
      t.startsWith('src/terminals/') ||
      (t.startsWith('src/engine/') && t !== 'src/engine/carrier.ts' && t !== 'src/engine/snapshot.ts'),
  },
  {
    name: 'terminal adapters see the engine only through its terminal port',
    files: (f) => f.startsWith('src/terminals/'),
    refuses: (t) => t.startsWith('src/engine/') && t !== 'src/engine/terminal.ts',
  },
  {
    name: 'sim/ imports only itself, Node built-ins and pure shared reference data',
    files: (f) => f.startsWith('sim/'),
    refuses: (t) => !(t.startsWith('sim/') || t.startsWith('node:') || SIM_SHARED.has(t)),
  },
  {
    name: 'the product reaches the simulator only through sim/library.ts',
    files: (f) => f.startsWith('src/'),
    refuses: (t) => t.startsWith('sim/') && t !== 'sim/library.ts',
  },
  {
    name: 'webhooks do not import the engine',
    files: (f) => f.startsWith('src/webhooks/'),
    refuses: (t) => t.startsWith('src/engine/'),
  },
  {
    name: 'src/db imports no HTTP, account or cache code',
    files: (f) => f.startsWith('src/db/'),
    refuses: (t) => isHttp(t) || t.startsWith('src/accounts/') || (isSource(t) && /cache/.test(t)),
  },
  {
    name: 'the worker and the utilities import no HTTP; utilities no storage',
    files: (f) => f.startsWith('src/worker/') || f.startsWith('src/util/'),
    refuses: (t, f) => isHttp(t) || (f.startsWith('src/util/') && t.startsWith('src/db/')),
  },
  {
    name: 'src/jsonapi, serializers and body builders import no HTTP layer or Fastify',
    files: (f) =>
      f.startsWith('src/jsonapi/') || (/\/(serializers?|bodies|include)\.ts$/.test(f) && !f.includes('/routes/')),
    refuses: isHttp,
  },
  {
    name: 'services take explicit dependencies: no app context, no Fastify',
    files: (f) => f.endsWith('/service.ts'),
    refuses: (t) => t === 'src/app-context.ts' || isFastify(t),
  },
  {
    name: 'Fastify is imported only at the HTTP edge',
    files: (f) => f.startsWith('src/') && !FASTIFY_EDGE.some((re) => re.test(f)),
    refuses: isFastify,
  },
];

export interface Report {
  cycles: string[][];
  /** Import circles between single files of src/ and sim/ (type-only imports included). */
  fileCycles: string[][];
  /** Broken import rules, by rule name: `file:line imports target`. */
  rules: Record<string, string[]>;
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

// `import x from 'm'`, `export * from 'm'`, `import 'm'` (side effects only) and `import('m')`.
const IMPORT =
  /(?:^|\s)(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|\s)import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

const posix = (p: string) => p.split(sep).join('/');

/** What a file (repository-relative) imports. */
export function importsOf(root: string, file: string): Import[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const target = spec.startsWith('.') ? posix(relative(root, resolve(root, dirname(file), spec))) : spec;
    return { target, line: text.slice(0, m.index).split('\n').length };
  });
}

/** The source files the rules read: src/ and sim/, repository-relative. */
export function sourceFiles(root: string): string[] {
  return [...walk(join(root, 'src')), ...walk(join(root, 'sim'))].map((f) => posix(relative(root, f)));
}

export function ruleViolations(root: string, rule: ImportRule, files = sourceFiles(root)): string[] {
  return files
    .filter(rule.files)
    .flatMap((f) =>
      importsOf(root, f)
        .filter((i) => rule.refuses(i.target, f))
        .map((i) => `${f}:${i.line} imports ${i.target}`),
    );
}

export function checkStructure(root: string): Report {
  const files = sourceFiles(root);
  const report: Report = { cycles: [], fileCycles: [], rules: {}, long: [], env: [] };
  const parts = new Map<string, Set<string>>();
  const byFile = new Map<string, Set<string>>();
  for (const rel of files) {
    const text = readFileSync(join(root, rel), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    // A generated file (src/db/schema.ts) is read through its generator, not by hand.
    if (lines > MAX_LINES && !text.startsWith('// GENERATED')) report.long.push(`${rel} (${lines} lines)`);
    if (rel.startsWith('src/') && rel !== 'src/config.ts' && /process\.env\b/.test(text)) report.env.push(rel);
    const to = new Set<string>();
    for (const { target } of importsOf(root, rel)) {
      if (!isSource(target)) continue;
      to.add(target);
      const [a, b] = [part(rel), part(target)];
      if (a && b && a !== b) {
        if (!parts.has(a)) parts.set(a, new Set());
        parts.get(a)!.add(b);
      }
    }
    byFile.set(rel, to);
  }
  for (const rule of IMPORT_RULES) {
    const bad = ruleViolations(root, rule, files);
    if (bad.length) report.rules[rule.name] = bad;
  }
  report.cycles = findCycles(parts);
  report.fileCycles = findCycles(byFile);
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
    ...report.fileCycles.map((c) => `import circle between files: ${c.join(', ')}`),
    ...Object.entries(report.rules).flatMap(([rule, bad]) => bad.map((f) => `${rule}: ${f}`)),
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
