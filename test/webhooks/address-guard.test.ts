import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  classifyAddress,
  createAddressPolicy,
  UNREACHABLE_HOST,
} from '../../src/webhooks/delivery/address-guard.ts';
import { attemptDelivery } from '../../src/webhooks/delivery/http-attempt.ts';

// [address, expected reason]: the edges of every refused range, v4 and v6. Inputs only: nothing dials them.
const BLOCKED: [string, string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['10.0.0.0', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['100.64.0.0', 'carrier_grade_nat'],
  ['100.127.255.255', 'carrier_grade_nat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['169.254.0.1', 'link_local'],
  ['169.254.169.254', 'link_local'],
  ['192.0.0.8', 'ietf_protocol_assignments'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.255', 'documentation'],
  ['198.18.0.0', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.88.99.1', '6to4_relay_anycast'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.254', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.31.196.1', 'as112'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['fec0::1', 'site_local'],
  ['fc00::1', 'unique_local'],
  ['fdff:ffff::1', 'unique_local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'],
  ['100::1', 'discard'],
  ['::ffff:10.0.0.1', 'ipv4_mapped:private'],
  ['::ffff:7f00:1', 'ipv4_mapped:loopback'],
  ['::ffff:127.0.0.1', 'ipv4_mapped:loopback'],
  ['::ffff:169.254.169.254', 'ipv4_mapped:link_local'],
  ['0:0:0:0:0:ffff:c0a8:0101', 'ipv4_mapped:private'],
  ['::ffff:0:10.0.0.1', 'ipv4_translated:private'],
  ['::10.0.0.1', 'ipv4_compatible'],
  ['::8.8.8.8', 'ipv4_compatible'],
  ['::a00:1', 'ipv4_compatible'],
  ['64:ff9b::10.0.0.1', 'nat64:private'],
  ['64:ff9b::7f00:1', 'nat64:loopback'],
  ['64:ff9b:1::1', 'nat64_local'],
  ['2002:0a00:0001::1', '6to4:private'],
  ['2002:7f00:0001::', '6to4:loopback'],
  ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo:private'], // client 10.0.0.1, inverted
  ['2001:0:0a00:0001::1', 'teredo:private'], // server 10.0.0.1
  ['4000::1', 'reserved'],
  ['::2', 'ipv4_compatible'],
  ['not an ip', 'invalid_address'],
  ['', 'invalid_address'],
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '100.63.255.255',
  '100.128.0.0',
  '172.15.255.255',
  '172.32.0.0',
  '192.167.255.255',
  '198.17.255.255',
  '198.20.0.0',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:0808:0808::1',
];

describe('classifyAddress', () => {
  for (const [ip, reason] of BLOCKED) {
    test(`refuses ${ip || '(empty)'} as ${reason}`, () => assert.equal(classifyAddress(ip), reason));
  }
  test('accepts public unicast addresses', () => {
    for (const ip of PUBLIC) assert.equal(classifyAddress(ip), 'public', ip);
  });
});

// A receiver that counts connections: "refused before connecting" means this stays at zero.
let server: Server;
let port = 0;
let connections = 0;
let requests = 0;
before(async () => {
  server = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
after(() => {
  server.closeAllConnections();
  server.close();
});
const reset = () => {
  connections = 0;
  requests = 0;
};
const send = (url: string, policy: ReturnType<typeof createAddressPolicy>) =>
  attemptDelivery({ url, body: '{}', headers: {}, dispatcher: policy.dispatcher, totalTimeoutMs: 2000 });

describe('checkUrl', () => {
  const strict = createAddressPolicy({ allowHttp: false, allowlist: [] });
  const local = createAddressPolicy({ allowHttp: true, allowlist: [] });
  after(async () => {
    await strict.dispatcher.close();
    await local.dispatcher.close();
  });

  test('URL shape checks', async () => {
    assert.deepEqual(await strict.checkUrl('http://example.com/'), {
      ok: false,
      reason: 'insecure_scheme',
      message: 'https is required',
      detail: 'https is required',
    });
    assert.equal((await local.checkUrl('ftp://example.com/')).ok, false);
    assert.equal(
      ((await local.checkUrl('ftp://example.com/')) as { reason: string }).reason,
      'unsupported_scheme',
    );
    assert.equal(
      ((await local.checkUrl('file:///etc/passwd')) as { reason: string }).reason,
      'unsupported_scheme',
    );
    assert.equal(((await local.checkUrl('not a url')) as { reason: string }).reason, 'invalid_url');
    assert.equal(
      ((await strict.checkUrl('https://u:p@8.8.8.8/')) as { reason: string }).reason,
      'credentials_in_url',
    );
    assert.equal(
      ((await strict.checkUrl('https://u@8.8.8.8/')) as { reason: string }).reason,
      'credentials_in_url',
    );
  });

  test('IP literals are classified without DNS', async () => {
    assert.deepEqual(await strict.checkUrl('https://8.8.8.8/hook'), { ok: true });
    for (const url of [
      'https://10.0.0.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fd00::1]/',
      'https://2130706433/', // 127.0.0.1 in decimal; the URL parser normalizes it
      'https://0x7f.1/',
      'https://169.254.169.254/latest/meta-data/',
    ]) {
      const r = await strict.checkUrl(url);
      assert.equal(r.ok, false, url);
      assert.equal((r as { reason: string }).reason, 'blocked_address', url);
    }
  });

  test('refuses http://localhost when not allowlisted, and nothing reaches the receiver', async () => {
    reset();
    const r = await local.checkUrl(`http://localhost:${port}/`);
    assert.equal(r.ok, false);
    assert.equal((r as { reason: string }).reason, 'blocked_address');
    assert.match((r as { detail: string }).detail, /localhost -> .*: loopback/);
    assert.equal((r as { message: string }).message, UNREACHABLE_HOST);
    // Even if a caller skipped checkUrl, the dispatcher refuses at connect time.
    const out = await send(`http://localhost:${port}/`, local);
    assert.equal(out.ok, false);
    assert.equal(out.error, 'blocked_address');
    assert.equal(connections, 0);
    assert.equal(requests, 0);
  });

  test('allowed when allowlisted by CIDR or by hostname', async () => {
    const byCidr = createAddressPolicy({ allowHttp: true, allowlist: ['127.0.0.0/8', '::1/128'] });
    const byHost = createAddressPolicy({ allowHttp: true, allowlist: ['LOCALHOST.'] });
    try {
      for (const p of [byCidr, byHost]) {
        reset();
        assert.deepEqual(await p.checkUrl(`http://localhost:${port}/`), { ok: true });
        const out = await send(`http://localhost:${port}/`, p);
        assert.equal(out.error, null);
        assert.equal(out.statusCode, 204);
        assert.equal(requests, 1);
      }
      assert.deepEqual(await byCidr.checkUrl(`http://127.0.0.1:${port}/`), { ok: true });
      assert.deepEqual(await byCidr.checkUrl('http://[::ffff:127.0.0.1]/'), { ok: true });
      assert.equal((await byCidr.checkUrl('http://10.0.0.1/')).ok, false);
    } finally {
      await byCidr.dispatcher.close();
      await byHost.dispatcher.close();
    }
  });

  test('DNS failures and mixed answers', async () => {
    const p = createAddressPolicy({
      allowHttp: false,
      allowlist: [],
      resolve: async (h) => {
        if (h === 'mixed.test')
          return [
            { address: '93.184.216.34', family: 4 },
            { address: '10.1.1.1', family: 4 },
          ];
        if (h === 'empty.test') return [];
        throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
      },
    });
    // One answer for all three (issue 31); the detail is for the operator's log.
    const refused = (detail: string) => ({
      ok: false,
      reason: 'blocked_address',
      message: UNREACHABLE_HOST,
      detail,
    });
    assert.deepEqual(await p.checkUrl('https://mixed.test/'), refused('mixed.test -> 10.1.1.1: private'));
    assert.deepEqual(await p.checkUrl('https://empty.test/'), refused('empty.test: no address'));
    assert.deepEqual(await p.checkUrl('https://nx.test/'), refused('nx.test: ENOTFOUND'));
  });

  test('invalid allowlist entries are rejected at construction', () => {
    assert.throws(
      () => createAddressPolicy({ allowHttp: false, allowlist: ['10.0.0.0/33'] }),
      /10\.0\.0\.0\/33/,
    );
    assert.throws(() => createAddressPolicy({ allowHttp: false, allowlist: ['bad host!'] }), /bad host!/);
  });
});

describe('dispatcher (connect-time check)', () => {
  test('refuses a name that resolves to a blocked address (DNS rebinding), before any connection', async () => {
    // checkUrl sees a public answer; the connection then resolves to loopback.
    let calls = 0;
    const p = createAddressPolicy({
      allowHttp: true,
      allowlist: [],
      resolve: async (h) => {
        assert.equal(h, 'rebind.test');
        calls++;
        return [{ address: calls === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
      },
    });
    try {
      reset();
      assert.deepEqual(await p.checkUrl(`http://rebind.test:${port}/`), { ok: true });
      const out = await send(`http://rebind.test:${port}/`, p);
      assert.equal(out.ok, false);
      assert.equal(out.error, 'blocked_address');
      assert.match(String(out.detail), /rebind\.test \(127\.0\.0\.1\) refused: loopback/);
      assert.equal(out.statusCode, null);
      assert.equal(calls, 2);
      assert.equal(connections, 0);
      assert.equal(requests, 0);
    } finally {
      await p.dispatcher.close();
    }
  });

  test('the same check applies to https connections', async () => {
    const p = createAddressPolicy({
      allowHttp: false,
      allowlist: [],
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    try {
      reset();
      assert.equal((await send(`https://rebind.test:${port}/`, p)).error, 'blocked_address');
      assert.equal(connections, 0);
    } finally {
      await p.dispatcher.close();
    }
  });

  test('refuses IP literals and IPv4-mapped literals at connect time', async () => {
    const p = createAddressPolicy({ allowHttp: true, allowlist: [] });
    try {
      reset();
      assert.equal((await send(`http://127.0.0.1:${port}/`, p)).error, 'blocked_address: loopback');
      assert.equal(
        (await send(`http://[::ffff:127.0.0.1]:${port}/`, p)).error,
        'blocked_address: ipv4_mapped:loopback',
      );
      assert.equal(connections, 0);
    } finally {
      await p.dispatcher.close();
    }
  });

  test('refuses plain http at connect time unless allowHttp', async () => {
    const p = createAddressPolicy({ allowHttp: false, allowlist: ['127.0.0.1'] });
    try {
      reset();
      assert.equal((await send(`http://127.0.0.1:${port}/`, p)).error, 'blocked_address: insecure_scheme');
      assert.equal(connections, 0);
    } finally {
      await p.dispatcher.close();
    }
  });

  test('the injected resolver is honoured for allowed names', async () => {
    const p = createAddressPolicy({
      allowHttp: true,
      allowlist: ['127.0.0.1/32'],
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    try {
      reset();
      const out = await send(`http://receiver.test:${port}/`, p);
      assert.equal(out.statusCode, 204);
      assert.equal(requests, 1);
    } finally {
      await p.dispatcher.close();
    }
  });
});
