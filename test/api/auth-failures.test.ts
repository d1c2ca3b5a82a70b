import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createAuthFailureLimiter } from '../../src/http/auth-failures.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { assertJsonApiError } from '../helpers/raw-http.ts';

// Failed authentication is limited per client address (RATE_LIMIT_AUTH_FAILURES_PER_MINUTE):
// unknown and malformed keys count; over the limit the address gets 429 with Retry-After, while
// valid keys keep working. The address is the socket's unless TRUST_PROXY says otherwise.

const LIMIT = 5;
const UNKNOWN = 'trk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

test('the limiter: a rolling window per address, familiar keys, a bounded Retry-After', () => {
  let now = 1_000_000;
  const l = createAuthFailureLimiter({ limit: 3, windowMs: 60_000, now: () => now });
  l.succeed('a', 'good-key');
  for (let i = 0; i < 3; i++) {
    assert.equal(l.blockedFor('a'), 0);
    l.fail('a');
    now += 10_000;
  }
  // Failures at 0, 10 and 20 s; now 30 s: the first leaves the window at 60 s.
  assert.equal(l.blockedFor('a'), 30);
  assert.equal(l.blockedFor('b'), 0);
  assert.ok(l.familiar('a', 'good-key'));
  assert.ok(!l.familiar('a', 'other-key'));
  assert.ok(!l.familiar('b', 'good-key'));
  now += 29_000;
  assert.equal(l.blockedFor('a'), 1);
  now += 1_000;
  assert.equal(l.blockedFor('a'), 0);
  assert.equal(loadConfig({}).rateLimits.authFailures, 30);
  assert.throws(() => loadConfig({ RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '0' }), /RATE_LIMIT_AUTH_FAILURES/);
  assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy, [
    '10.0.0.0/8',
    '127.0.0.1',
  ]);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.throws(() => loadConfig({ TRUST_PROXY: 'proxy.example' }), /TRUST_PROXY/);
});

for (const engine of ENGINES) {
  describe(`authentication-failure limit [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(LIMIT) });
    });
    after(() => t.close());

    test('unknown and malformed keys count; then 429 with Retry-After; valid keys keep working', async () => {
      assert.equal((await t.request('GET', '/v2/tracking_requests')).status, 200);
      const other = await t.newAccount('same address');
      assert.equal((await t.request('GET', '/v2/shipments', { key: other.key })).status, 200);
      const failures: Array<Parameters<TestApp['request']>[2]> = [
        { key: UNKNOWN },
        { key: 'not-a-key' },
        { key: null, headers: { authorization: 'Bearer something' } },
        { key: `${t.key.slice(0, -1)}${t.key.endsWith('A') ? 'B' : 'A'}` },
        { key: 'trk_123456789abc_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' },
      ];
      for (const opts of failures)
        assertJsonApiError(await t.request('GET', '/v2/tracking_requests', opts), 401);
      for (const opts of [...failures, { key: UNKNOWN }]) {
        const res = await t.request('GET', '/v2/shipments', opts);
        assertJsonApiError(res, 429);
        const retry = Number(res.headers.get('retry-after'));
        assert.ok(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
        assert.match(res.body.errors[0].detail, /failed authentications/);
      }
      // Keys that worked from this address keep working, on every engine (no key cache needed).
      assert.equal((await t.request('GET', '/v2/tracking_requests')).status, 200);
      assert.equal((await t.request('GET', '/v2/shipments', { key: other.key })).status, 200);
      // A request without a key is not a guess: still a plain 401.
      assertJsonApiError(await t.request('GET', '/v2/shipments', { key: null }), 401);
    });
  });

  describe(`authentication-failure limit behind a proxy [${engine}]`, () => {
    test('X-Forwarded-For names the client only when TRUST_PROXY says so', async () => {
      for (const trust of [undefined, '127.0.0.1']) {
        const t = await startTestApp(engine, {
          RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: String(LIMIT),
          ...(trust ? { TRUST_PROXY: trust } : {}),
        });
        try {
          const from = (ip: string) => ({ key: UNKNOWN, headers: { 'x-forwarded-for': ip } });
          for (let i = 0; i < LIMIT; i++)
            assertJsonApiError(await t.request('GET', '/v2/shipments', from('10.0.0.1')), 401);
          assertJsonApiError(await t.request('GET', '/v2/shipments', from('10.0.0.1')), 429);
          // Another client behind the proxy: its own count when the proxy is trusted.
          assertJsonApiError(await t.request('GET', '/v2/shipments', from('10.0.0.2')), trust ? 401 : 429);
        } finally {
          await t.close();
        }
      }
    });
  });
}
