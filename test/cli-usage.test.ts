import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runNode } from './helpers/process.ts';

// Help is not an error: usage on stdout and exit 0, before any database is opened. A command the
// CLI does not know, or none, is a usage error: stderr and exit 2.

test('--help, -h and help print the usage on stdout and exit 0', async () => {
  for (const args of [['--help'], ['-h'], ['help']]) {
    const r = await runNode(['src/cli/main.ts', ...args], { DATA_DIR: '/nonexistent' });
    assert.equal(r.code, 0, `${args}: ${r.stderr}`);
    assert.match(r.stdout, /^Usage: npm run cli -- <command>/);
    assert.match(r.stdout, /accounts list \[--json\]/);
    assert.equal(r.stderr, '');
  }
});

test('an unknown command, or none, is a usage error on stderr with exit 2', async () => {
  for (const args of [['frobnicate'], []]) {
    const r = await runNode(['src/cli/main.ts', ...args], { DATA_DIR: '/nonexistent' });
    assert.equal(r.code, 2, `${args}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Usage: npm run cli -- <command>/);
  }
});
