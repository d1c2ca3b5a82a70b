// OAuth2 client credentials with a signed client assertion (RFC 7523 private_key_jwt): a local
// token endpoint that verifies each assertion with the registered public key, through the whole
// path a CARRIERS_CONFIG entry takes (config -> registry -> 3.0.0 adapter -> HTTP).

import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import { CarrierConfigError, parseCarriersConfig } from '../../src/config/carriers.ts';
import { json, type Stub, startStub } from './stub-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'carrier-keys-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
function keyFile(name: string, key: KeyObject): string {
  const file = join(dir, name);
  writeFileSync(file, key.export({ type: 'pkcs8', format: 'pem' }) as string);
  return file;
}

/** The carrier's registered public key per client id; what the token endpoint saw. */
const registered = new Map<string, KeyObject>([
  ['rsa-client', rsa.publicKey],
  ['ec-client', ec.publicKey],
]);
const seenJti = new Set<string>();
let issued = 0;
let rejectNextApiCall = false;
let stub: Stub;

function checkAssertion(form: URLSearchParams, audience: string): string | null {
  if (form.get('grant_type') !== 'client_credentials') return 'grant_type';
  if (form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer')
    return 'client_assertion_type';
  if (form.has('client_secret')) return 'a secret was sent';
  const [h, c, sig] = (form.get('client_assertion') ?? '').split('.');
  if (!h || !c || !sig) return 'not a JWT';
  const header = JSON.parse(Buffer.from(h, 'base64url').toString());
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
  const key = registered.get(form.get('client_id') ?? '');
  if (!key) return 'unknown client';
  const hash = header.alg === 'RS256' || header.alg === 'ES256' ? 'sha256' : null;
  if (!hash) return `alg ${header.alg}`;
  const ok = verify(
    hash,
    Buffer.from(`${h}.${c}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(sig, 'base64url'),
  );
  if (!ok) return 'bad signature';
  const now = Date.now() / 1000;
  if (claims.iss !== form.get('client_id') || claims.sub !== claims.iss) return 'iss/sub';
  if (claims.aud !== audience) return 'aud';
  if (!(claims.exp > now && claims.iat <= now + 5)) return 'times';
  if (seenJti.has(claims.jti)) return 'jti replayed';
  seenJti.add(claims.jti);
  return null;
}

before(async () => {
  stub = await startStub((req, res) => {
    if (req.url.pathname === '/token') {
      const why = checkAssertion(new URLSearchParams(req.body), `${stub.url}/token`);
      if (why) return json(res, 401, { error: 'invalid_client', error_description: why });
      return json(res, 200, { access_token: `tok${++issued}`, token_type: 'Bearer', expires_in: 300 });
    }
    const auth = String(req.headers.authorization ?? '');
    if (!/^Bearer tok\d+$/.test(auth) || rejectNextApiCall) {
      rejectNextApiCall = false;
      return json(res, 401, { feedbackElements: [{ message: 'invalid token' }] });
    }
    return json(res, 200, {
      events: [
        { eventID: 'e1', eventClassification: { eventTypeCode: 'SHIPMENT', shipmentEventTypeCode: 'CONF' } },
      ],
    });
  });
});
after(() => stub.close());

function adapterFor(clientId: string, file: string) {
  const entries = parseCarriersConfig(
    JSON.stringify([
      {
        scac: 'MAEU',
        adapter: 'dcsa-tnt-v3',
        base_url: `${stub.url}/v3`,
        auth: {
          type: 'oauth2_private_key_jwt',
          token_url: `${stub.url}/token`,
          client_id: clientId,
          private_key_file: file,
          key_id: 'k1',
        },
        requests_per_minute: 6000,
        number_types: ['bill_of_lading'],
      },
    ]),
    { format: 'json' },
  );
  return buildCarrierRegistry(entries).get('MAEU')!;
}

describe('OAuth2 private_key_jwt', () => {
  it('RSA and EC keys: the endpoint verifies the assertion with the public key; the token is cached', async () => {
    for (const [client, file] of [
      ['rsa-client', keyFile('rsa.pem', rsa.privateKey)],
      ['ec-client', keyFile('ec.pem', ec.privateKey)],
    ] as const) {
      stub.requests.length = 0;
      const adapter = adapterFor(client, file);
      assert.equal((await adapter.lookup('bill_of_lading', 'BL1')).kind, 'found', client);
      assert.equal((await adapter.lookup('bill_of_lading', 'BL1')).kind, 'found');
      assert.equal(stub.requests.filter((r) => r.url.pathname === '/token').length, 1, 'one token for both');
    }
  });

  it('a 401 from the API renews the token once (a fresh assertion), then the lookup succeeds', async () => {
    const adapter = adapterFor('rsa-client', keyFile('rsa2.pem', rsa.privateKey));
    assert.equal((await adapter.lookup('bill_of_lading', 'BL1')).kind, 'found');
    stub.requests.length = 0;
    rejectNextApiCall = true;
    assert.equal((await adapter.lookup('bill_of_lading', 'BL1')).kind, 'found');
    assert.deepEqual(
      stub.requests.map((r) => r.url.pathname),
      ['/v3/events', '/token', '/v3/events'],
    );
  });

  it('a key the carrier does not know is refused, and the failure shows neither key nor assertion', async () => {
    const adapter = adapterFor('rsa-client', keyFile('stranger.pem', stranger.privateKey));
    const r = await adapter.lookup('bill_of_lading', 'BL1');
    assert.equal(r.kind, 'temporary_failure');
    const detail = (r as { detail: string }).detail;
    assert.match(detail, /token endpoint rejected the client credentials \(HTTP 401\)/);
    const assertion = new URLSearchParams(stub.requests.at(-1)?.body).get('client_assertion') ?? '';
    assert.ok(assertion.length > 100 && !detail.includes(assertion.slice(0, 40)));
  });

  it('the key file must exist and hold a private key', () => {
    const pub = join(dir, 'public.pem');
    writeFileSync(pub, rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    for (const [file, why] of [
      [join(dir, 'missing.pem'), /ENOENT/],
      [pub, /not a PEM private key/],
    ] as const) {
      assert.throws(
        () => adapterFor('rsa-client', file),
        (err: unknown) => err instanceof CarrierConfigError && why.test(err.problems.join('\n')),
      );
    }
  });
});
