// `npm run cli -- carriers check`, as a child process against the simulator process: a good
// OAuth entry (3.0.0), a wrong secret, an unreachable endpoint, and a number that is not found.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, runNode } from '../helpers/process.ts';
import { spawnSimulator } from '../helpers/simulator.ts';

const dir = mkdtempSync(join(tmpdir(), 'carriers-check-'));
let sim: Awaited<ReturnType<typeof spawnSimulator>>;
let configFile: string;
const SECRET = 'sim-secret-value';
const WRONG = 'not-the-secret';

before(async () => {
  sim = await spawnSimulator(['--oauth-client-id', 'tracker', '--oauth-client-secret', SECRET]);
  const entry = (scac: string, base: string, secret: string) => ({
    scac,
    adapter: 'dcsa-tnt-v3',
    base_url: base,
    auth: {
      type: 'oauth2_client_credentials',
      token_url: `${sim.url}/oauth/token`,
      client_id: 'tracker',
      client_secret: secret,
    },
    requests_per_minute: 600,
    number_types: ['bill_of_lading', 'container'],
    timeout_ms: 3000,
  });
  configFile = join(dir, 'carriers.json');
  writeFileSync(
    configFile,
    JSON.stringify([
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own ${ENV} syntax
      entry('GOOD', `${sim.url}/v3`, '${GOOD_SECRET}'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file's own ${ENV} syntax
      entry('BADS', `${sim.url}/v3`, '${BAD_SECRET}'),
      {
        ...entry('DOWN', `http://127.0.0.1:${await freePort()}/v3`, 'x'),
        auth: { type: 'headers', headers: { 'x-api-key': 'k' } },
      },
    ]),
  );
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (...args: string[]) =>
  runNode(['src/cli/main.ts', 'carriers', 'check', ...args], {
    CARRIERS_CONFIG: configFile,
    GOOD_SECRET: SECRET,
    BAD_SECRET: WRONG,
  });
const line = (out: string, scac: string) => out.split('\n').find((l) => l.startsWith(scac)) ?? '';

describe('carriers check', () => {
  it('one line per carrier; the wrong secret and the unreachable endpoint fail; exit 1; no secret printed', async () => {
    const r = await check();
    assert.equal(r.code, 1, r.stderr);
    assert.match(line(r.stdout, 'GOOD'), /dcsa-tnt-v3\s+ok\s+reached\s+-\s+ok$/);
    assert.match(line(r.stdout, 'BADS'), /failed.*FAIL token endpoint rejected the client credentials/);
    assert.match(line(r.stdout, 'DOWN'), /failed\s+-\s+FAIL shipping_line_unreachable: connection failed/);
    for (const s of [SECRET, WRONG]) assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s));
  });

  it('one carrier with --number: what the look-up found, or that the number is not found', async () => {
    const found = await check('GOOD', '--number', 'SIMBL3C0001', '--type', 'bill_of_lading');
    assert.equal(found.code, 0, found.stdout + found.stderr);
    assert.match(line(found.stdout, 'GOOD'), /bill_of_lading SIMBL3C0001: found \(\d+ events\)/);
    assert.equal(found.stdout.trim().split('\n').length, 2, 'header and one carrier');
    const missing = await check('good', '--number', 'NOSUCH00001', '--type', 'bill_of_lading');
    assert.equal(missing.code, 0);
    assert.match(line(missing.stdout, 'GOOD'), /bill_of_lading NOSUCH00001: not found/);
  });
});

describe('carriers check, a carrier that wants a container with a booking', () => {
  let hmm: Awaited<ReturnType<typeof spawnSimulator>>;
  let file: string;
  before(async () => {
    hmm = await spawnSimulator(['--require-equipment-with', 'carrierBookingReference']);
    file = join(dir, 'hmm.json');
    writeFileSync(
      file,
      JSON.stringify([
        {
          scac: 'HDMU',
          adapter: 'dcsa-tnt-v2',
          base_url: hmm.url,
          auth: { type: 'headers', headers: { 'x-gateway-apikey': 'k' } },
          requires_equipment: ['booking_number'],
          requests_per_minute: 600,
          number_types: ['booking_number', 'container'],
          timeout_ms: 3000,
        },
      ]),
    );
  });
  after(() => hmm?.close());
  const checkHmm = (...args: string[]) =>
    runNode(['src/cli/main.ts', 'carriers', 'check', ...args], { CARRIERS_CONFIG: file });

  it('the probe and --container reach it; a booking alone is refused before asking', async () => {
    const ok = await checkHmm(
      '--number',
      'BKGTSU200000',
      '--type',
      'booking_number',
      '--container',
      'SIMU2000001',
    );
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(
      line(ok.stdout, 'HDMU'),
      /reached\s+booking_number BKGTSU200000: found \(\d+ events\)\s+ok$/,
    );
    const alone = await checkHmm('--number', 'BKGTSU200000', '--type', 'booking_number');
    assert.equal(alone.code, 1);
    assert.match(
      line(alone.stdout, 'HDMU'),
      /FAIL invalid_number: HDMU looks up a booking_number only together with a container number/,
    );
  });
});
