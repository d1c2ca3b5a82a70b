// Issue 31 (7): a refused webhook URL never tells where its host name points, nor whether it
// resolves: a loopback name, a private name and an unknown name get one answer, on create, edit and
// the test trigger, and a delivery refused at connection says no more. Addresses written in the URL
// may be named. The log keeps the detail for the operator.
import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { setAddressResolver } from '../../src/webhooks/delivery/outbound.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

const ANSWER = "The URL is refused: the URL's host is not a reachable public address (blocked_address).";
const PUBLIC = '93.184.216.34';

for (const engine of ENGINES) {
  describe(`refused webhook URLs reveal nothing internal [${engine}]`, () => {
    let t: TestApp;
    const lines: { level: number; msg: string; detail?: string }[] = [];
    // Names no hosts file here provides; the rest (localhost, runsc, unknown names) resolve for real.
    // rebind.test answers a public address once (the URL check), then a private one (the connection).
    let rebinds = 0;
    const names: Record<string, () => string> = {
      'intranet.test': () => '10.1.2.3',
      'public.test': () => PUBLIC,
      'rebind.test': () => (rebinds++ === 0 ? PUBLIC : '10.9.9.9'),
    };
    before(async () => {
      const sink = new Writable({
        write(chunk, _enc, done) {
          for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
          done();
        },
      });
      t = await startTestApp(engine, {}, undefined, { logger: pino({ level: 'warn' }, sink) });
      setAddressResolver(t.config, async (host) => {
        const fixed = names[host];
        return fixed ? [{ address: fixed(), family: 4 }] : lookup(host, { all: true });
      });
    });
    after(() => t.close());

    const create = (url: string) =>
      t.request('POST', '/v2/webhooks', { body: { data: { type: 'webhook', attributes: { url } } } });
    const trigger = (url: string) =>
      t.request('POST', '/v2/webhooks/trigger', { body: { url, event: 'tracking_request.succeeded' } });

    test('a loopback name, a private name and an unknown name: one answer, on create, edit and trigger', async () => {
      const created = await create('https://public.test/hook');
      assert.equal(created.status, 201, created.text);
      const edit = (url: string) =>
        t.request('PATCH', `/v2/webhooks/${created.body.data.id}`, {
          body: { data: { type: 'webhook', id: created.body.data.id, attributes: { url } } },
        });
      for (const url of [
        'https://localhost/x',
        'https://runsc/x',
        'https://intranet.test/x',
        'https://no-such-host.invalid/x',
      ]) {
        for (const [res, pointer] of [
          [await create(url), '/data/attributes/url'],
          [await edit(url), '/data/attributes/url'],
          [await trigger(url), '/url'],
        ] as const) {
          assert.equal(res.status, 422, `${url}: ${res.text}`);
          assert.deepEqual(
            res.body.errors.map((e: any) => [e.code, e.detail, e.source.pointer]),
            [['blocked_address', ANSWER, pointer]],
            url,
          );
          assert.doesNotMatch(res.text, /127\.0\.0\.1|10\.1\.2\.3|loopback|private|ENOTFOUND/, url);
        }
      }
      const logged = lines
        .filter((l) => l.msg === 'webhook URL refused' && l.level === 40)
        .map((l) => l.detail);
      assert.ok(logged.includes('localhost -> 127.0.0.1: loopback'), JSON.stringify(logged));
      assert.ok(logged.includes('intranet.test -> 10.1.2.3: private'), JSON.stringify(logged));
      assert.ok(logged.includes('no-such-host.invalid: ENOTFOUND'), JSON.stringify(logged));
    });

    test('an address written in the URL may be named', async () => {
      for (const [url, detail] of [
        ['https://127.0.0.1/x', '127.0.0.1: loopback'],
        ['https://10.0.0.1/x', '10.0.0.1: private'],
      ]) {
        const res = await create(url!);
        assert.equal(res.status, 422, res.text);
        assert.equal(res.body.errors[0].code, 'blocked_address');
        assert.equal(res.body.errors[0].detail, `The URL is refused: ${detail} (blocked_address).`);
      }
    });

    test('a delivery refused at connection (the name now points inside) says blocked_address only', async () => {
      const res = await trigger('https://rebind.test/x');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.succeeded, false);
      assert.equal(res.body.error, 'blocked_address');
      assert.doesNotMatch(res.text, /10\.9\.9\.9|private/);
      const logged = lines.find((l) => l.msg === 'webhook test delivery refused');
      assert.match(logged?.detail ?? '', /10\.9\.9\.9.*private/, JSON.stringify(logged));
    });
  });
}
