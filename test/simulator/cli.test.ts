import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { it } from 'node:test';

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
