import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

// src/db/schema.ts is generated from the migrations (`npm run db:types`); a migration that adds or
// changes a column without regenerating it fails here, and so in CI.
const root = new URL('../../', import.meta.url).pathname;

test('src/db/schema.ts is what the migrations make', () => {
  const r = spawnSync(process.execPath, ['scripts/db-types.ts', '--check'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `${r.stderr}${r.stdout}`);
});

test('every table the migrations create has a row type', () => {
  const migrations = new URL('../../migrations/', import.meta.url);
  const created = new Set<string>();
  for (const f of spawnSync('ls', [migrations.pathname], { encoding: 'utf8' }).stdout.trim().split('\n')) {
    const text = readFileSync(new URL(f, migrations), 'utf8');
    for (const m of text.matchAll(/create table (?:if not exists )?(\w+)/gi))
      created.add(m[1]!.toLowerCase());
    for (const m of text.matchAll(/drop table (?:if exists )?(\w+)/gi)) created.delete(m[1]!.toLowerCase());
  }
  const schema = readFileSync(new URL('../../src/db/schema.ts', import.meta.url), 'utf8');
  const typed = new Set([...schema.matchAll(/^ {2}(\w+): \w+Table;$/gm)].map((m) => m[1]!));
  for (const table of created) assert.ok(typed.has(table), `${table} has no row type in src/db/schema.ts`);
});
