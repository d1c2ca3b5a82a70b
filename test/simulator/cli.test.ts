import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { it } from 'node:test';
import { freePort, spawnNode } from '../helpers/process.ts';

it('npm run carrier-sim entry point starts a simulator and stops on SIGTERM', async () => {
  const child = spawn(
    process.execPath,
    ['sim/main.ts', '--port', '0', '--speed', '3600', '--not-found-status', '404'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    let out = '';
    child.stdout.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /carrier simulator: (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const found = await fetch(`${url}?transportDocumentReference=TEST-TR-SUCCEEDED`);
    assert.equal(found.status, 200);
    assert.ok(((await found.json()) as unknown[]).length > 0);
    const missing = await fetch(`${url}?transportDocumentReference=SIMNONE1`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const clock = (await (await fetch(new URL('/control/clock', url))).json()) as { speed: number };
    assert.equal(clock.speed, 3600);
  } finally {
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0);
  }
});

it('the carrier modes from the command line (docs/simulator.md, "Carrier modes")', async () => {
  const proc = spawnNode(
    [
      'sim/main.ts',
      '--port',
      String(await freePort()),
      '--require-equipment-with',
      'carrierBookingReference',
      '--api-version',
      '1',
      '--paging-header',
      'X-Next',
      '--requests-per-minute',
      '5',
      '--not-found-reason',
      'no such shipment',
    ],
    {},
  );
  try {
    const url = (await proc.waitFor(/carrier simulator: (http:\/\/\S+)/))[1]!;
    const get = (q: string, version = '1') =>
      fetch(`${url}?${q}&limit=2`, { headers: { 'API-Version': version } });
    const noBox = await get('carrierBookingReference=BKGTSU200000');
    assert.equal(noBox.status, 400);
    assert.match(await noBox.text(), /must be combined with equipmentReference/);
    const both = await get('carrierBookingReference=BKGTSU200000&equipmentReference=SIMU2000001');
    assert.equal(both.status, 200);
    assert.ok(both.headers.get('X-Next'));
    assert.equal(both.headers.get('Next-Page'), null);
    await both.body?.cancel();
    const version = await get('transportDocumentReference=SIMTSU200000', '2');
    assert.equal(version.status, 400);
    assert.match(await version.text(), /API-Version 1 is required \(received 2\)/);
    const unknown = await get('transportDocumentReference=SIMNONE1');
    assert.equal(unknown.status, 400);
    assert.match(await unknown.text(), /no such shipment/);
    await (await get('transportDocumentReference=SIMNONE1')).body?.cancel();
    const limited = await get('transportDocumentReference=SIMNONE1');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('Retry-After')) > 50);
    await limited.body?.cancel();
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
  }
});
