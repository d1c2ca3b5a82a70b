import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseCarriersConfig } from '../../src/config/carriers.ts';

// Every `yaml` and `json` block of docs/carriers.md is a CARRIERS_CONFIG a reader may copy: each
// must load with the product's own loader, so an example cannot name a field that does not exist
// or be YAML that does not parse (a `${VAR}` in a flow mapping needs quotes, for one).

const DOC = new URL('../../docs/carriers.md', import.meta.url);

test('the CARRIERS_CONFIG examples of docs/carriers.md load', () => {
  const dir = mkdtempSync(join(tmpdir(), 'carriers-doc-'));
  const keyFile = join(dir, 'key.pem');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  writeFileSync(keyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  // Every ${VAR} is "set": a URL where the name says so, a plain value otherwise.
  const env = new Proxy({} as Record<string, string>, {
    get: (_t, name) => (String(name).endsWith('_URL') ? 'https://carrier.example/api' : 'set'),
  });
  const blocks = [...readFileSync(DOC, 'utf8').matchAll(/^```(yaml|json)\n([\s\S]*?)^```/gm)];
  assert.ok(blocks.length >= 4, `only ${blocks.length} examples found`);
  const scacs: string[] = [];
  for (const [, format, body] of blocks) {
    // The key file named in an example does not exist here: a real key stands in for it.
    const text = body!.replace(/(private_key_file:\s*)\S+/g, `$1${keyFile}`);
    const entries = parseCarriersConfig(text, { env, format: format as 'yaml' | 'json', source: 'docs' });
    assert.ok(entries.length > 0, `an empty example:\n${text}`);
    scacs.push(...entries.map((e) => `${e.scac} ${e.adapter} ${e.auth.type}`));
  }
  // Each kind of connection the document explains is among the examples.
  for (const kind of [
    'dcsa-tnt-v2 headers',
    'dcsa-tnt-v3 headers',
    'oauth2_client_credentials',
    'oauth2_private_key_jwt',
  ])
    assert.ok(
      scacs.some((s) => s.includes(kind)),
      `no example of ${kind}: ${scacs.join(', ')}`,
    );
});
