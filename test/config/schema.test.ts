// The configuration schema is the one list of variables: docs/configuration.md (`npm run docs:config`)
// and `npm run cli -- config` are printed from it, and loadConfig reads every entry of it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, it } from 'node:test';
import { configurationMarkdown } from '../../scripts/docs-config.ts';
import { ConfigError, environment, loadConfig, SCHEMA, SETTINGS, settingsTable } from '../../src/config.ts';

const ROOT = new URL('../../', import.meta.url).pathname;

describe('configuration schema', () => {
  it('docs/configuration.md equals the schema (run `npm run docs:config`)', () => {
    assert.equal(readFileSync(`${ROOT}docs/configuration.md`, 'utf8'), configurationMarkdown());
  });

  it('docs/configuration.md lists every variable once', () => {
    const text = readFileSync(`${ROOT}docs/configuration.md`, 'utf8');
    for (const s of SETTINGS) assert.equal(text.split(`| \`${s.name}\` |`).length, 2, s.name);
  });

  it('`npm run cli -- config` prints the schema', () => {
    const out = execFileSync(process.execPath, ['src/cli/main.ts', 'config'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    assert.equal(out, settingsTable());
  });

  it('every entry has a name, type, default and one-sentence meaning', () => {
    assert.equal(SETTINGS.length, Object.keys(SCHEMA).length);
    assert.ok(SETTINGS.length >= 40, `only ${SETTINGS.length} settings`);
    for (const s of SETTINGS) {
      assert.match(s.name, /^[A-Z][A-Z0-9_]*$/);
      assert.ok(s.type && s.default && s.description, s.name);
      assert.match(s.description, /[.…]$/, s.name);
    }
  });

  it('every integer entry is validated by loadConfig and named in its problem', () => {
    const integers = SETTINGS.filter((s) => s.type.startsWith('integer'));
    assert.ok(integers.length >= 30);
    for (const s of integers) {
      assert.throws(
        () => loadConfig({ [s.name]: 'not-a-number' }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.some((p) => p.includes(s.name) && p.includes('not-a-number')),
        s.name,
      );
    }
  });

  it('the default of every integer entry is what loadConfig uses when the variable is unset', () => {
    // Setting a variable to its documented default changes nothing: the table tells the truth.
    // A default given as a formula (it depends on the machine) is checked through its value here.
    const computed: Record<string, number> = { DB_POOL_SIZE: Math.max(4, 2 * availableParallelism() + 1) };
    const defaults = loadConfig({});
    for (const s of SETTINGS.filter((x) => x.type.startsWith('integer') && x.default !== '(unset)')) {
      const value = /^\d+$/.test(s.default) ? s.default : String(computed[s.name]);
      assert.deepEqual(loadConfig({ [s.name]: value }), defaults, s.name);
    }
  });

  it('where the change feed listens: DATABASE_LISTEN_URL, else DATABASE_URL unless prepared statements are off', () => {
    const url = 'postgres://u@pool:6432/db';
    const direct = 'postgres://u@db:5432/db';
    const listen = (env: Record<string, string>) =>
      loadConfig({ DATABASE_URL: url, ...env }).databaseListenUrl;
    assert.equal(listen({}), url);
    assert.equal(listen({ DATABASE_PREPARED_STATEMENTS: 'off' }), null);
    assert.equal(listen({ DATABASE_PREPARED_STATEMENTS: 'off', DATABASE_LISTEN_URL: direct }), direct);
    assert.equal(loadConfig({}).databasePreparedStatements, 'auto');
    assert.throws(() => loadConfig({ DATABASE_PREPARED_STATEMENTS: 'named' }), ConfigError);
    assert.throws(
      () => loadConfig({ DATABASE_LISTEN_URL: direct }),
      /DATABASE_LISTEN_URL needs DATABASE_URL/,
    );
  });

  it('environment(): overrides over the process environment over defaults', () => {
    const name = 'CONFIG_SCHEMA_TEST_UNSET_VARIABLE';
    assert.equal(environment({}, { [name]: 'd' })[name], 'd');
    assert.equal(environment({ [name]: 'o' }, { [name]: 'd' })[name], 'o');
    assert.equal(environment({}, { PATH: 'd' }).PATH, process.env.PATH);
  });
});
