// Dependency rules of the engine, the carrier adapters and the simulator (issue 11), read from
// the import statements of the source files:
// - src/engine/ is carrier-agnostic: no adapter, simulator, HTTP, webhook or route code, no Fastify;
// - adapters (src/carriers/) see the engine only through its carrier port and snapshot types;
// - sim/ is its own program: it imports only sim/ and pure shared reference data;
// - the product reaches sim/ only through sim/library.ts (so the sandbox and the simulator never
//   form a cycle);
// and every rule of scripts/check-structure.ts (no cycles between the top-level parts of src/, layer
// rules, Fastify at the HTTP edge, no file over 400 lines, process.env read only in src/config.ts).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkStructure, findCycles as findCyclesOf, problems } from '../scripts/check-structure.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

interface Import {
  /** Repository-relative path for relative imports, else the bare specifier. */
  target: string;
  line: number;
}

// `import x from 'm'`, `export * from 'm'`, `import 'm'` (side effects only) and `import('m')`.
const IMPORT =
  /(?:^|\s)(?:import|export)\s[^'";]*?from\s*'([^']+)'|(?:^|\s)import\s*'([^']+)'|import\(\s*'([^']+)'\s*\)/g;

function importsOf(file: string): Import[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const out: Import[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = (m[1] ?? m[2] ?? m[3])!;
    const line = text.slice(0, m.index).split('\n').length;
    const target = spec.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), spec)) : spec;
    out.push({ target, line });
  }
  return out;
}

function violations(files: string[], allowed: (target: string, file: string) => boolean): string[] {
  const bad: string[] = [];
  for (const file of files) {
    for (const i of importsOf(file))
      if (!allowed(i.target, file)) bad.push(`${file}:${i.line} imports ${i.target}`);
  }
  return bad;
}

describe('structure: dependency rules', () => {
  it('the import reader sees imports (guard against a rule that cannot fail)', () => {
    const targets = importsOf('src/engine/normalize.ts').map((i) => i.target);
    assert.ok(targets.includes('src/engine/prepare.ts'), targets.join(', '));
    assert.ok(importsOf('src/carriers/sandbox.ts').some((i) => i.target === 'sim/library.ts'));
  });

  it('src/engine imports no adapter, simulator, HTTP, webhook or route code', () => {
    const forbidden = [
      /^src\/carriers\//,
      /^src\/terminals\//,
      /^sim\//,
      /^src\/http\//,
      /^src\/webhooks\//,
      /^src\/webhook-notifications\//,
      /(^|\/)routes\.ts$/,
      /^src\/app\.ts$/,
      /^fastify$|^@fastify\//,
    ];
    assert.deepEqual(
      violations(sourceFiles('src/engine'), (t) => !forbidden.some((f) => f.test(t))),
      [],
    );
  });

  it('adapters see the engine only through its carrier port and snapshot types', () => {
    const port = new Set(['src/engine/carrier.ts', 'src/engine/snapshot.ts']);
    assert.deepEqual(
      violations(sourceFiles('src/carriers'), (t) => !t.startsWith('src/engine/') || port.has(t)),
      [],
    );
  });

  it('terminal adapters see the engine only through its terminal port', () => {
    assert.deepEqual(
      violations(
        sourceFiles('src/terminals'),
        (t) => !t.startsWith('src/engine/') || t === 'src/engine/terminal.ts',
      ),
      [],
    );
  });

  it('sim/ imports only itself, Node built-ins and pure shared reference data', () => {
    const shared = new Set(['src/reference/data.ts', 'src/util/uuid.ts', 'src/util/iso6346.ts']);
    assert.deepEqual(
      violations(sourceFiles('sim'), (t) => t.startsWith('sim/') || t.startsWith('node:') || shared.has(t)),
      [],
    );
  });

  it('the product reaches the simulator only through sim/library.ts', () => {
    assert.deepEqual(
      violations(sourceFiles('src'), (t) => !t.startsWith('sim/') || t === 'sim/library.ts'),
      [],
    );
  });

  it('no file over 400 lines in the engine, the adapters and the simulator', () => {
    const long = [
      ...sourceFiles('src/engine'),
      ...sourceFiles('src/carriers'),
      ...sourceFiles('src/terminals'),
      ...sourceFiles('sim'),
    ]
      .map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length] as const)
      .filter(([, n]) => n > 400);
    assert.deepEqual(long, []);
  });
});

describe('structure: rules of scripts/check-structure.ts', () => {
  const report = checkStructure(ROOT);

  it('the checker sees what it checks (guard against a rule that cannot fail)', () => {
    // A two-part cycle is found, a chain is not.
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['a', 'c'])],
    ]);
    assert.deepEqual(findCyclesOf(edges), [['a', 'b']]);
    assert.ok(problems({ ...report, env: ['src/x.ts'] }).some((p) => p.includes('src/x.ts')));
  });

  it('no cycle between the top-level parts of src/', () => {
    assert.deepEqual(report.cycles, []);
  });

  for (const group of ['forbidden', 'fastify', 'long', 'env'] as const) {
    it(`${group}: no violation`, () => {
      assert.deepEqual(report[group], []);
    });
  }
});
