// WEBHOOK_ALLOWLIST entries with ports: parsing, and enforcement at URL check and at every connection,
// against real receivers on loopback. Also `route`: which receivers count as internal (answers never kept).
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { parseAllowlist, parseAllowlistEntry } from '../../src/config/allowlist.ts';
import { createAddressPolicy } from '../../src/webhooks/delivery/address-guard.ts';
import { attemptDelivery } from '../../src/webhooks/delivery/http-attempt.ts';

describe('allowlist entries', () => {
  // [entry, kind, range or host, port]
  const VALID: [string, 'range' | 'host', string, number | null][] = [
    ['127.0.0.1', 'range', '127.0.0.1/32', null],
    ['127.0.0.1:8080', 'range', '127.0.0.1/32', 8080],
    ['10.0.0.0/8', 'range', '10.0.0.0/8', null],
    ['10.0.0.0/8:443', 'range', '10.0.0.0/8', 443],
    ['::1', 'range', '::1/128', null],
    ['fd00::/8', 'range', 'fd00::/8', null],
    ['[::1]', 'range', '::1/128', null],
    ['[::1]:9000', 'range', '::1/128', 9000],
    ['[fd00::/8]:443', 'range', 'fd00::/8', 443],
    ['[::ffff:10.0.0.1]:80', 'range', '::ffff:a00:1/128', 80],
    ['hooks.internal', 'host', 'hooks.internal', null],
    ['Hooks.Internal.:8443', 'host', 'hooks.internal', 8443],
    ['localhost:65535', 'host', 'localhost', 65535],
    [' 192.168.1.0/24:1 ', 'range', '192.168.1.0/24', 1],
  ];
  for (const [entry, kind, what, port] of VALID) {
    test(`"${entry}"`, () => {
      const e = parseAllowlistEntry(entry);
      assert.equal(e.kind, kind);
      assert.equal(e.port, port);
      if (e.kind === 'host') assert.equal(e.host, what);
      else assert.equal(`${e.range[0].toString()}/${e.range[1]}`, what);
    });
  }

  const INVALID: [string, RegExp][] = [
    ['127.0.0.1:0', /port must be 1 to 65535, got "0"/],
    ['127.0.0.1:65536', /port must be 1 to 65535/],
    ['127.0.0.1:http', /port must be 1 to 65535, got "http"/],
    ['127.0.0.1:', /port must be/],
    ['10.0.0.0/33', /prefix length must be 0 to 32/],
    ['[fd00::/129]:443', /prefix length must be 0 to 128/],
    ['10.0.0.300', /not an IPv4 address or CIDR/],
    ['10.1', /not an IPv4 address/],
    ['0x7f.0.0.1', /not a valid host name/],
    ['[::1', /unbalanced brackets/],
    ['[::1]9000', /unbalanced brackets/],
    ['[127.0.0.1]:80', /not an IPv6 address or CIDR/],
    ['::1:9000x', /not an IPv6 address or CIDR/],
    ['fe80::1%eth0', /not an IPv6 address or CIDR/],
    ['bad host!', /not a valid host name/],
    ['-bad.example', /not a valid host name/],
    ['host.123', /not a valid host name/],
    [':8080', /no address or host/],
    ['http://hooks.internal', /port must be|not a valid host/],
  ];
  for (const [entry, why] of INVALID) {
    test(`"${entry}" is refused, naming the entry`, () => {
      assert.throws(
        () => parseAllowlistEntry(entry),
        (err: Error) => {
          assert.match(
            err.message,
            new RegExp(`^entry "${entry.trim().replace(/[[\]().*+?^$|\\]/g, '\\$&')}": `),
          );
          assert.match(err.message, why);
          return true;
        },
      );
    });
  }

  test('a list reports every bad entry and ignores empty items', () => {
    const { entries, problems } = parseAllowlist(['10.0.0.0/8, ,bad!,127.0.0.1:0,', 'hooks.internal:443']);
    assert.deepEqual(
      entries.map((e) => e.text),
      ['10.0.0.0/8', 'hooks.internal:443'],
    );
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /^entry "bad!"/);
    assert.match(problems[1]!, /^entry "127.0.0.1:0"/);
  });
});

describe('ports are enforced at the URL check and at every connection', () => {
  let open: Server; // the allowlisted receiver
  let other: Server; // listening too, on a port not in the entry: only the policy can refuse it
  let openPort = 0;
  let otherPort = 0;
  let otherRequests = 0;
  before(async () => {
    open = createServer((_req, res) => res.writeHead(204).end());
    other = createServer((_req, res) => {
      otherRequests++;
      res.writeHead(204).end();
    });
    other.on('connection', () => otherRequests++);
    for (const s of [open, other]) await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    openPort = (open.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });
  after(async () => {
    for (const s of [open, other]) await new Promise((r) => s.close(r));
  });

  const send = (url: string, dispatcher: ReturnType<typeof createAddressPolicy>['dispatcher']) =>
    attemptDelivery({ url, body: '{}', headers: {}, dispatcher, totalTimeoutMs: 3000 });

  for (const form of ['address', 'cidr', 'host'] as const) {
    test(`an entry by ${form} with a port opens that port only`, async () => {
      const entry =
        form === 'address'
          ? `127.0.0.1:${openPort}`
          : form === 'cidr'
            ? `127.0.0.0/8:${openPort}`
            : `localhost:${openPort}`;
      const p = createAddressPolicy({
        allowHttp: true,
        allowlist: [entry],
        resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      const host = form === 'host' ? 'localhost' : '127.0.0.1';
      try {
        assert.deepEqual(await p.checkUrl(`http://${host}:${openPort}/`), { ok: true });
        const ok = await send(`http://${host}:${openPort}/`, p.dispatcher);
        assert.equal(ok.statusCode, 204, String(ok.error));

        const refused = await p.checkUrl(`http://${host}:${otherPort}/`);
        assert.equal(refused.ok, false);
        assert.equal((refused as { reason: string }).reason, 'blocked_address');
        assert.match(
          (refused as { detail: string }).detail,
          new RegExp(`loopback, port ${otherPort} not allowlisted`),
        );
        // The default port of the scheme is a port like any other.
        assert.equal((await p.checkUrl(`http://${host}/`)).ok, false);
        // Skipping the URL check does not help: the connection itself is refused.
        otherRequests = 0;
        const out = await send(`http://${host}:${otherPort}/`, p.dispatcher);
        assert.equal(out.statusCode, null);
        // Only an address written in the URL is named; a resolved one stays in the log's detail.
        const why = `loopback, port ${otherPort} not allowlisted`;
        if (form === 'host') {
          assert.equal(out.error, 'blocked_address');
          assert.match(String(out.detail), new RegExp(why));
        } else assert.match(String(out.error), new RegExp(`^blocked_address: ${why}`));
        assert.equal(otherRequests, 0, 'nothing reached the other port');
      } finally {
        await p.dispatcher.close();
      }
    });
  }

  test('an entry without a port opens every port', async () => {
    const p = createAddressPolicy({ allowHttp: true, allowlist: ['127.0.0.1'] });
    try {
      for (const port of [openPort, otherPort]) {
        assert.deepEqual(await p.checkUrl(`http://127.0.0.1:${port}/`), { ok: true });
        assert.equal((await send(`http://127.0.0.1:${port}/`, p.dispatcher)).statusCode, 204);
      }
    } finally {
      await p.dispatcher.close();
    }
  });

  test('IPv6 entries in brackets, with and without a port', () => {
    const p = createAddressPolicy({ allowHttp: true, allowlist: ['[::1]:9000', '[fd00::/8]'] });
    assert.equal(p.checkAddress('::1', undefined, 9000), 'allowed');
    assert.equal(p.checkAddress('::1', undefined, 9001), 'loopback, port 9001 not allowlisted');
    assert.equal(p.checkAddress('fd12::1', undefined, 1), 'allowed');
    assert.equal(p.checkAddress('fe80::1', undefined, 9000), 'link_local');
    // Public addresses never needed the allowlist, whatever the port.
    assert.equal(p.checkAddress('93.184.216.34', undefined, 22), 'allowed');
  });
});

describe('route: only receivers at public addresses are not internal', () => {
  test('no allowlist: everything reachable is public, no DNS look-up', async () => {
    const p = createAddressPolicy({
      allowHttp: true,
      allowlist: [],
      resolve: async () => assert.fail('no look-up needed'),
    });
    const r = await p.route('https://hooks.example.com/x');
    assert.equal(r.internal, false);
    assert.equal(r.dispatcher, p.dispatcher);
    await p.dispatcher.close();
  });

  test('allowlisted addresses, CIDRs and hosts are internal; public answers are not', async () => {
    const p = createAddressPolicy({
      allowHttp: true,
      allowlist: ['127.0.0.1:9000', 'hooks.internal', '10.0.0.0/8'],
      resolve: async (h) => {
        if (h === 'public.test') return [{ address: '93.184.216.34', family: 4 }];
        if (h === 'mixed.test')
          return [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.5', family: 4 },
          ];
        throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
      },
    });
    const internal = async (url: string) => (await p.route(url)).internal;
    assert.equal(await internal('http://127.0.0.1:9000/'), true);
    assert.equal(await internal('https://hooks.internal/'), true);
    assert.equal(await internal('https://mixed.test/'), true);
    assert.equal(await internal('https://nx.test/'), true);
    assert.equal(await internal('https://93.184.216.34/'), false);
    assert.equal(await internal('https://public.test/'), false);
    assert.notEqual((await p.route('https://public.test/')).dispatcher, p.dispatcher);
    await p.dispatcher.close();
  });

  test('a name that was public at the check and rebinds to an allowlisted address is refused, not read', async () => {
    let served = 0;
    const rx = createServer((_req, res) => {
      served++;
      res.writeHead(500).end('internal secret');
    });
    await new Promise<void>((r) => rx.listen(0, '127.0.0.1', r));
    const port = (rx.address() as AddressInfo).port;
    let calls = 0;
    const p = createAddressPolicy({
      allowHttp: true,
      allowlist: [`127.0.0.1:${port}`],
      // First answer (route) public; every later one (the connection) the allowlisted receiver.
      resolve: async () => [{ address: calls++ === 0 ? '93.184.216.34' : '127.0.0.1', family: 4 }],
    });
    try {
      const url = `http://rebind.test:${port}/`;
      const target = await p.route(url);
      assert.equal(target.internal, false);
      const out = await attemptDelivery({ url, body: '{}', headers: {}, ...target, totalTimeoutMs: 3000 });
      // A resolved address is not told (issue 31): the detail is for the log.
      assert.equal(out.error, 'blocked_address');
      assert.match(String(out.detail), /127\.0\.0\.1.*loopback/);
      assert.equal(out.responseExcerpt, null);
      assert.equal(served, 0);
    } finally {
      await p.dispatcher.close();
      await new Promise((r) => rx.close(r));
    }
  });
});
