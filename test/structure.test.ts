// The structure rules of docs/architecture.md as tests. Every rule is declared once, in
// scripts/check-structure.ts (IMPORT_RULES and the checks beside them); here each one becomes a
// test, with guards that the import reader and the rules can fail.

import assert from 'node:assert/strict';
import { dirname, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import {
  checkStructure,
  findCycles,
  IMPORT_RULES,
  importsOf,
  problems,
  ruleViolations,
  sourceFiles,
} from '../scripts/check-structure.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = sourceFiles(ROOT);
const rule = (start: string) => IMPORT_RULES.find((r) => r.name.startsWith(start))!;

describe('structure: guards (a rule that cannot fail proves nothing)', () => {
  it('the import reader sees static, type-only and re-exported imports', () => {
    const targets = importsOf(ROOT, 'src/engine/normalize.ts').map((i) => i.target);
    assert.ok(targets.includes('src/engine/prepare.ts'), targets.join(', '));
    assert.ok(importsOf(ROOT, 'src/carriers/sandbox.ts').some((i) => i.target === 'sim/library.ts'));
    assert.ok(
      importsOf(ROOT, 'src/shipments/routes.ts').some((i) => i.target === 'src/shipments/service.ts'),
    );
  });

  it('every rule applies to some file', () => {
    for (const r of IMPORT_RULES) assert.ok(files.some(r.files), r.name);
    assert.ok(files.filter(rule('src/jsonapi').files).length >= 10);
    assert.ok(files.filter(rule('services').files).length >= 6);
  });

  it('the rules refuse what they name', () => {
    assert.ok(rule('src/engine').refuses('src/shipments/queries.ts', 'src/engine/apply.ts'));
    assert.ok(rule('src/engine').refuses('src/carriers/dcsa/client.ts', 'src/engine/apply.ts'));
    assert.ok(rule('src/engine').refuses('fastify', 'src/engine/apply.ts'));
    assert.ok(!rule('src/engine').refuses('src/db/schema.ts', 'src/engine/apply.ts'));
    assert.ok(rule('adapters').refuses('src/engine/apply.ts', 'src/carriers/x.ts'));
    assert.ok(rule('sim/').refuses('src/shipments/queries.ts', 'sim/x.ts'));
    assert.ok(rule('Fastify').refuses('fastify', 'src/engine/apply.ts'));
  });

  it('the checker finds a cycle and reports every kind of problem', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['a', 'c'])],
    ]);
    assert.deepEqual(findCycles(edges), [['a', 'b']]);
    const empty = { cycles: [], fileCycles: [], rules: {}, long: [], env: [] };
    assert.ok(problems({ ...empty, env: ['src/x.ts'] }).some((p) => p.includes('src/x.ts')));
    assert.ok(
      problems({ ...empty, rules: { r: ['src/y.ts:1 imports z'] } }).some((p) => p.includes('src/y.ts')),
    );
  });
});

describe('structure: import rules', () => {
  for (const r of IMPORT_RULES) {
    it(r.name, () => {
      assert.deepEqual(ruleViolations(ROOT, r, files), []);
    });
  }
});

describe('structure: cycles, sizes, environment', () => {
  const report = checkStructure(ROOT);

  it('no cycle between the top-level parts of src/', () => {
    assert.deepEqual(report.cycles, []);
  });

  it('no import circle between two files of src/ or sim/', () => {
    assert.deepEqual(report.fileCycles, []);
  });

  it('no source file over 400 lines', () => {
    assert.deepEqual(report.long, []);
  });

  it('only src/config.ts reads process.env', () => {
    assert.deepEqual(report.env, []);
  });
});
