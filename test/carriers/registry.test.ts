import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { CarrierConfigEntry } from '../../src/config/carriers.ts';
import { json, type Stub, startStub } from './stub-server.ts';

let stub: Stub;
before(async () => {
  stub = await startStub((req, res) =>
    req.url.pathname === '/token'
      ? json(res, 200, { access_token: 'abc', expires_in: 300 })
      : json(res, 200, [{ eventID: 'e1', eventType: 'SHIPMENT', eventClassifierCode: 'ACT' }]),
  );
});
after(() => stub.close());

const entry = (scac: string, extra: Partial<CarrierConfigEntry> = {}): CarrierConfigEntry => ({
  scac,
  adapter: 'dcsa-tnt-v2',
  base_url: `${stub.url}/${scac.toLowerCase()}`,
  auth: { type: 'headers', headers: { 'X-Key': `${scac}-key` } },
  requests_per_minute: 600,
  number_types: ['bill_of_lading', 'container'],
  ...extra,
});

describe('carrier registry', () => {
  it('one DCSA adapter per configured SCAC, wired to its auth, plus the sandbox TEST', async () => {
    const registry = buildCarrierRegistry([
      entry('HLCU'),
      entry('CMDU', {
        auth: {
          type: 'oauth2_client_credentials',
          token_url: `${stub.url}/token`,
          client_id: 'a',
          client_secret: 'b',
        },
        number_types: ['bill_of_lading'],
      }),
    ]);
    assert.deepEqual([...registry.keys()].sort(), ['CMDU', 'HLCU', 'TEST']);
    assert.deepEqual(registry.get('CMDU')!.numberTypes, ['bill_of_lading']);

    stub.requests.length = 0;
    const r = await registry.get('HLCU')!.lookup('bill_of_lading', 'HLCUSHA2403ABC1');
    assert.equal(r.kind, 'found');
    assert.equal(stub.requests[0]!.url.pathname, '/hlcu/v2/events');
    assert.equal(stub.requests[0]!.headers['x-key'], 'HLCU-key');

    await registry.get('CMDU')!.lookup('bill_of_lading', 'CMDU123');
    const api = stub.requests.find((q) => q.url.pathname === '/cmdu/v2/events');
    assert.equal(api?.headers.authorization, 'Bearer abc');
  });

  it('the request budget of a connection is applied to its lookups', async () => {
    const registry = buildCarrierRegistry([entry('ONEY', { requests_per_minute: 1 })], { maxWaitMs: 0 });
    const adapter = registry.get('ONEY')!;
    assert.equal((await adapter.lookup('container', 'MSKU7000013')).kind, 'found');
    const second = await adapter.lookup('container', 'MSKU7000013');
    assert.equal(second.kind, 'temporary_failure');
    assert.ok(((second as { retryAfterMs?: number }).retryAfterMs ?? 0) > 0);
  });

  it('a configured TEST replaces the sandbox (e.g. to point at the HTTP simulator)', async () => {
    const registry = buildCarrierRegistry([entry('TEST')]);
    assert.equal(registry.size, 1);
    stub.requests.length = 0;
    await registry.get('TEST')!.lookup('bill_of_lading', 'ANYTHING');
    assert.equal(stub.requests[0]?.url.pathname, '/test/v2/events');
  });

  it('without configuration the sandbox answers the published test numbers', async () => {
    const registry = buildCarrierRegistry([], { clock: () => new Date('2024-06-01T00:00:00Z') });
    assert.deepEqual([...registry.keys()], ['TEST']);
    const sandbox = registry.get('TEST')!;
    assert.equal(sandbox.scac, 'TEST');
    assert.equal((await sandbox.lookup('bill_of_lading', 'TEST-TR-SUCCEEDED')).kind, 'found');
    assert.notEqual((await sandbox.lookup('bill_of_lading', 'TEST-TR-FAILED')).kind, 'found');
  });
});
