import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { recordDomainEvents } from '../../src/domain-events/record.ts';
import { EVENT_NAMES } from '../../src/webhooks/catalogue.ts';
import { isValidSecret, legacySignature, verifyStandard } from '../../src/webhooks/delivery/sign.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

const LIMITS = { RATE_LIMIT_CREATE_PER_MINUTE: '1000', RATE_LIMIT_DEFAULT_PER_MINUTE: '1000' };
const LOCAL = { ...LIMITS, WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWLIST: '127.0.0.0/8' };
const SOURCE_IPS = '203.0.113.5,198.51.100.7';
const RECEIVER_ANSWER = 'RECEIVER-PRIVATE-ANSWER-1f3c';

const whBody = (attributes: Record<string, unknown>) => ({ data: { type: 'webhook', attributes } });

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A real receiver on loopback that records what it gets and answers `status`. */
async function startReceiver() {
  const received: Received[] = [];
  let status = 200;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status, { 'content-type': 'text/plain' });
      res.end(RECEIVER_ANSWER);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer(s: number) {
      status = s;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

for (const engine of ENGINES) {
  describe(`webhooks [${engine}]`, () => {
    let t: TestApp; // allows http and loopback, like a local test setup
    let strict: TestApp; // default policy: https only, no private addresses
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    before(async () => {
      t = await startTestApp(engine, { ...LOCAL, WEBHOOK_SOURCE_IPS: SOURCE_IPS });
      strict = await startTestApp(engine, LIMITS, { database: t.database });
      receiver = await startReceiver();
    });
    after(async () => {
      await receiver.close();
      await strict.close();
      await t.close();
    });

    const create = (attributes: Record<string, unknown>, app: TestApp = t, key?: string) =>
      app.request('POST', '/v2/webhooks', { body: whBody(attributes), ...(key ? { key } : {}) });

    const count = async (table: 'webhooks' | 'webhook_notifications' | 'domain_events') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    test('create answers 201 with the webhook and its generated whsec_ secret; events default to all', async () => {
      const res = await create({ url: 'http://127.0.0.1:9/hook' });
      assert.equal(res.status, 201);
      const d = res.body.data;
      assert.equal(d.type, 'webhook');
      assert.match(d.id, /^[0-9a-f-]{36}$/);
      assert.equal(d.attributes.url, 'http://127.0.0.1:9/hook');
      assert.equal(d.attributes.active, true);
      assert.deepEqual(d.attributes.events, [...EVENT_NAMES]);
      assert.equal(d.attributes.events.length, 43);
      assert.deepEqual(d.attributes.headers, []);
      assert.equal(d.attributes.description, null);
      assert.match(d.attributes.secret, /^whsec_/);
      assert.ok(isValidSecret(d.attributes.secret));
      for (const k of ['deactivated_at', 'deactivation_reason', 'last_success_at', 'last_failure_at']) {
        assert.equal(d.attributes[k], null, k);
      }
      assert.equal(d.attributes.failing_since, null);
      assert.equal(d.links.self, `/v2/webhooks/${d.id}`);
      const got = await t.request('GET', d.links.self);
      assert.equal(got.status, 200);
      assert.equal(got.body.data.attributes.secret, d.attributes.secret);
      assert.deepEqual(got.body.data, d);
    });

    test('create keeps the events, headers, description and active given', async () => {
      const res = await create({
        url: 'http://127.0.0.1:9/chosen',
        events: ['tracking_request.succeeded', 'container.transport.vessel_arrived'],
        headers: [{ name: 'X-Secret-Sauce', value: 'sriracha' }],
        description: 'ops receiver',
        active: false,
      });
      assert.equal(res.status, 201);
      const a = res.body.data.attributes;
      assert.deepEqual(a.events, ['tracking_request.succeeded', 'container.transport.vessel_arrived']);
      assert.deepEqual(a.headers, [{ name: 'X-Secret-Sauce', value: 'sriracha' }]);
      assert.equal(a.description, 'ops receiver');
      assert.equal(a.active, false);
      // Two creates never share a secret.
      const other = await create({ url: 'http://127.0.0.1:9/chosen' });
      assert.notEqual(other.body.data.attributes.secret, a.secret);
    });

    test('create validation: missing url, https required, private and loopback refused', async () => {
      const before = await count('webhooks');
      const missing = await create({ events: ['tracking_request.succeeded'] });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.errors[0].source.pointer, '/data/attributes/url');
      assert.equal(missing.body.errors[0].code, 'blank');

      const http = await create({ url: 'http://hooks.example.com/x' }, strict);
      assert.equal(http.status, 422);
      assert.equal(http.body.errors[0].source.pointer, '/data/attributes/url');
      assert.equal(http.body.errors[0].code, 'insecure_scheme');
      assert.match(http.body.errors[0].detail, /https is required/);

      for (const [url, reason] of [
        ['https://127.0.0.1/hook', 'loopback'],
        ['https://10.1.2.3/hook', 'private'],
        ['https://192.168.1.10/hook', 'private'],
        ['https://169.254.169.254/latest/meta-data', 'link_local'],
        ['https://[::1]/hook', 'loopback'],
        ['https://[::ffff:127.0.0.1]/hook', 'ipv4_mapped:loopback'],
        ['https://0.0.0.0/hook', 'unspecified'],
      ] as const) {
        const res = await create({ url }, strict);
        assert.equal(res.status, 422, url);
        assert.equal(res.body.errors[0].source.pointer, '/data/attributes/url');
        assert.equal(res.body.errors[0].code, 'blocked_address', url);
        assert.ok(res.body.errors[0].detail.includes(reason), `${url}: ${res.body.errors[0].detail}`);
      }
      // The allowlist opens loopback only: other private ranges stay closed.
      const privateOnLocal = await create({ url: 'http://10.0.0.1/hook' });
      assert.equal(privateOnLocal.status, 422);
      assert.match(privateOnLocal.body.errors[0].detail, /private/);
      for (const url of ['not a url', 'ftp://127.0.0.1/x', 'http://user:pw@127.0.0.1/x']) {
        const res = await create({ url });
        assert.equal(res.status, 422, url);
        assert.equal(res.body.errors[0].source.pointer, '/data/attributes/url');
      }
      assert.equal(await count('webhooks'), before, 'nothing stored');
    });

    test('loopback over http is accepted when the operator allowlists it', async () => {
      const res = await create({ url: receiver.url });
      assert.equal(res.status, 201);
      assert.equal(res.body.data.attributes.url, receiver.url);
    });

    test('events: unknown, duplicate and empty lists are 422', async () => {
      const unknown = await create({
        url: 'http://127.0.0.1:9/x',
        events: ['tracking_request.succeeded', 'tracking_request.exploded'],
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.errors[0].source.pointer, '/data/attributes/events/1');
      assert.equal(unknown.body.errors[0].code, 'unknown_event');
      assert.match(unknown.body.errors[0].detail, /tracking_request\.exploded/);

      const dup = await create({
        url: 'http://127.0.0.1:9/x',
        events: ['tracking_request.succeeded', 'tracking_request.succeeded'],
      });
      assert.equal(dup.status, 422);
      assert.equal(dup.body.errors[0].source.pointer, '/data/attributes/events');
      assert.equal(dup.body.errors[0].code, 'not_unique');

      const empty = await create({ url: 'http://127.0.0.1:9/x', events: [] });
      assert.equal(empty.status, 422);
      assert.equal(empty.body.errors[0].source.pointer, '/data/attributes/events');
    });

    test('headers: invalid names, reserved names, duplicates, bad values and too many are 422', async () => {
      const cases: Array<[Array<{ name: string; value: string }>, string, string]> = [
        [[{ name: 'Bad Name', value: 'x' }], '/data/attributes/headers/0/name', 'invalid_header_name'],
        [
          [
            { name: 'X-Ok', value: 'x' },
            { name: 'X:Colon', value: 'x' },
          ],
          '/data/attributes/headers/1/name',
          'invalid_header_name',
        ],
        [[{ name: '', value: 'x' }], '/data/attributes/headers/0/name', 'invalid_header_name'],
        [
          [{ name: 'Content-Type', value: 'text/plain' }],
          '/data/attributes/headers/0/name',
          'reserved_header',
        ],
        [[{ name: 'host', value: 'evil' }], '/data/attributes/headers/0/name', 'reserved_header'],
        [[{ name: 'User-Agent', value: 'me' }], '/data/attributes/headers/0/name', 'reserved_header'],
        [
          [{ name: 'Webhook-Signature', value: 'v1,x' }],
          '/data/attributes/headers/0/name',
          'reserved_header',
        ],
        [
          [{ name: 'x-service-webhook-signature', value: 'x' }],
          '/data/attributes/headers/0/name',
          'reserved_header',
        ],
        [
          [{ name: 'Transfer-Encoding', value: 'chunked' }],
          '/data/attributes/headers/0/name',
          'reserved_header',
        ],
        [
          [
            { name: 'X-A', value: '1' },
            { name: 'x-a', value: '2' },
          ],
          '/data/attributes/headers/1/name',
          'duplicate',
        ],
        [
          [{ name: 'X-A', value: 'line\r\nInjected: 1' }],
          '/data/attributes/headers/0/value',
          'invalid_header_value',
        ],
      ];
      for (const [headers, pointer, code] of cases) {
        const res = await create({ url: 'http://127.0.0.1:9/x', headers });
        assert.equal(res.status, 422, JSON.stringify(headers));
        assert.equal(res.body.errors[0].source.pointer, pointer, JSON.stringify(headers));
        assert.equal(res.body.errors[0].code, code, JSON.stringify(headers));
      }
      const many = Array.from({ length: 21 }, (_, i) => ({ name: `X-H${i}`, value: 'v' }));
      const tooMany = await create({ url: 'http://127.0.0.1:9/x', headers: many });
      assert.equal(tooMany.status, 422);
      assert.equal(tooMany.body.errors[0].source.pointer, '/data/attributes/headers');
      const twenty = await create({ url: 'http://127.0.0.1:9/x', headers: many.slice(0, 20) });
      assert.equal(twenty.status, 201);
      // A client cannot choose the secret.
      const secret = await create({ url: 'http://127.0.0.1:9/x', secret: 'whsec_mine' });
      assert.equal(secret.status, 422);
      assert.equal(secret.body.errors[0].code, 'unknown_attribute');
    });

    test('list: newest first, filter[active], paging, and only the caller’s webhooks', async () => {
      const acct = await t.newAccount('lister');
      const ids: string[] = [];
      for (const active of [true, false, true]) {
        const res = await create({ url: 'http://127.0.0.1:9/list', active }, t, acct.key);
        ids.push(res.body.data.id);
        // PGlite keeps created_at to the millisecond and ties sort by random id: one apart.
        await new Promise((r) => setTimeout(r, 2));
      }
      const all = await t.request('GET', '/v2/webhooks', { key: acct.key });
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.body.data.map((d: any) => d.id),
        [...ids].reverse(),
      );
      assert.equal(all.body.meta.total, 3);
      const inactive = await t.request('GET', '/v2/webhooks?filter[active]=false', { key: acct.key });
      assert.deepEqual(
        inactive.body.data.map((d: any) => d.id),
        [ids[1]],
      );
      const active = await t.request('GET', '/v2/webhooks?filter[active]=true', { key: acct.key });
      assert.equal(active.body.meta.total, 2);
      const page = await t.request('GET', '/v2/webhooks?page[size]=2&page[number]=2', { key: acct.key });
      assert.deepEqual(
        page.body.data.map((d: any) => d.id),
        [ids[0]],
      );
      assert.match(page.body.links.prev, /page%5Bnumber%5D=1/);
      const bad = await t.request('GET', '/v2/webhooks?filter[active]=maybe', { key: acct.key });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.errors[0].source.parameter, 'filter[active]');
      // The first account sees none of these.
      const mine = await t.request('GET', '/v2/webhooks?page[size]=100');
      assert.ok(!mine.body.data.some((d: any) => ids.includes(d.id)));
    });

    test('patch: url (checked again), events, headers, description; empty patch changes nothing', async () => {
      const created = (await create({ url: 'http://127.0.0.1:9/a', events: ['tracking_request.failed'] }))
        .body.data;
      const path = `/v2/webhooks/${created.id}`;
      const res = await t.request('PATCH', path, {
        body: {
          data: {
            type: 'webhook',
            id: created.id,
            attributes: {
              url: 'http://127.0.0.2:9/b',
              events: ['container.created'],
              headers: [{ name: 'Authorization', value: 'Bearer abc' }],
              description: 'moved',
            },
          },
        },
      });
      assert.equal(res.status, 200);
      const a = res.body.data.attributes;
      assert.equal(a.url, 'http://127.0.0.2:9/b');
      assert.deepEqual(a.events, ['container.created']);
      assert.deepEqual(a.headers, [{ name: 'Authorization', value: 'Bearer abc' }]);
      assert.equal(a.description, 'moved');
      assert.equal(a.secret, created.attributes.secret, 'the secret stays');
      assert.ok(a.updated_at >= created.attributes.updated_at);

      const refused = await t.request('PATCH', path, { body: whBody({ url: 'http://192.168.0.1/x' }) });
      assert.equal(refused.status, 422);
      assert.equal(refused.body.errors[0].source.pointer, '/data/attributes/url');
      const badEvent = await t.request('PATCH', path, { body: whBody({ events: ['nope'] }) });
      assert.equal(badEvent.status, 422);
      assert.equal(badEvent.body.errors[0].source.pointer, '/data/attributes/events/0');
      const badHeader = await t.request('PATCH', path, {
        body: whBody({ headers: [{ name: 'Host', value: 'x' }] }),
      });
      assert.equal(badHeader.status, 422);

      const same = await t.request('PATCH', path, { body: whBody({}) });
      assert.equal(same.status, 200);
      assert.equal(same.body.data.attributes.url, 'http://127.0.0.2:9/b');
      const cleared = await t.request('PATCH', path, { body: whBody({ headers: null, description: null }) });
      assert.deepEqual(cleared.body.data.attributes.headers, []);
      assert.equal(cleared.body.data.attributes.description, null);
    });

    test('reactivation: active true clears the deactivation and the failure window', async () => {
      const created = (await create({ url: 'http://127.0.0.1:9/r' })).body.data;
      const failingSince = new Date(Date.now() - 6 * 86_400_000);
      await t.database.db
        .updateTable('webhooks')
        .set({
          active: false,
          deactivated_at: new Date(),
          deactivation_reason: 'repeated_failures',
          failing_since: failingSince,
          last_failure_at: new Date(),
        })
        .where('id', '=', created.id)
        .execute();
      const path = `/v2/webhooks/${created.id}`;
      const dead = (await t.request('GET', path)).body.data.attributes;
      assert.equal(dead.active, false);
      assert.equal(dead.deactivation_reason, 'repeated_failures');
      assert.ok(dead.deactivated_at);
      assert.equal(dead.failing_since, failingSince.toISOString());

      const res = await t.request('PATCH', path, { body: whBody({ active: true }) });
      assert.equal(res.status, 200);
      const a = res.body.data.attributes;
      assert.equal(a.active, true);
      assert.equal(a.deactivated_at, null);
      assert.equal(a.deactivation_reason, null);
      assert.equal(a.failing_since, null);
      assert.ok(a.last_failure_at, 'history stays');

      // On an active webhook, active: true does not reset a running failure window.
      await t.database.db
        .updateTable('webhooks')
        .set({ failing_since: failingSince })
        .where('id', '=', created.id)
        .execute();
      const again = await t.request('PATCH', path, { body: whBody({ active: true }) });
      assert.equal(again.body.data.attributes.failing_since, failingSince.toISOString());
      const off = await t.request('PATCH', path, { body: whBody({ active: false }) });
      assert.equal(off.body.data.attributes.active, false);
    });

    test('rotate_secret issues a new secret and keeps the old one signing for the grace period', async () => {
      const created = (await create({ url: 'http://127.0.0.1:9/s' })).body.data;
      const path = `/v2/webhooks/${created.id}`;
      const started = Date.now();
      const res = await t.request('PATCH', path, { body: whBody({ rotate_secret: true }) });
      assert.equal(res.status, 200);
      const a = res.body.data.attributes;
      assert.ok(isValidSecret(a.secret));
      assert.notEqual(a.secret, created.attributes.secret);
      const row = await t.database.db
        .selectFrom('webhooks')
        .select(['secret', 'previous_secret', 'previous_secret_expires_at'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.secret, a.secret);
      assert.equal(row.previous_secret, created.attributes.secret);
      const grace = t.config.webhooks.secretRotationGraceMs;
      const expires = row.previous_secret_expires_at!.getTime();
      assert.ok(Math.abs(expires - (started + grace)) < 60_000, `expires ${expires} vs ${started + grace}`);
      assert.equal(a.previous_secret_expires_at, row.previous_secret_expires_at!.toISOString());
      assert.equal((await t.request('GET', path)).body.data.attributes.secret, a.secret);
      // rotate_secret: false changes nothing.
      const no = await t.request('PATCH', path, { body: whBody({ rotate_secret: false }) });
      assert.equal(no.body.data.attributes.secret, a.secret);
    });

    test('delete answers 200 {} and removes the webhook with its notifications', async () => {
      const created = (await create({ url: 'http://127.0.0.1:9/d', events: ['tracking_request.failed'] }))
        .body.data;
      await recordDomainEvents(t.database.db, [
        {
          event: 'tracking_request.failed',
          account_id: t.accountId,
          reference_type: 'tracking_request',
          reference_id: randomUUID(),
        },
      ]);
      const of = () =>
        t.database.db
          .selectFrom('webhook_notifications')
          .select('id')
          .where('webhook_id', '=', created.id)
          .execute();
      assert.equal((await of()).length, 1);
      const path = `/v2/webhooks/${created.id}`;
      const res = await t.request('DELETE', path);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
      assert.equal((await t.request('GET', path)).status, 404);
      assert.equal((await of()).length, 0);
      assert.equal((await t.request('DELETE', path)).status, 404);
    });

    test("another account's webhook is 404 everywhere; malformed ids are 404", async () => {
      const created = (await create({ url: 'http://127.0.0.1:9/mine' })).body.data;
      const other = await t.newAccount();
      const path = `/v2/webhooks/${created.id}`;
      assert.equal((await t.request('GET', path, { key: other.key })).status, 404);
      const patch = await t.request('PATCH', path, { key: other.key, body: whBody({ active: false }) });
      assert.equal(patch.status, 404);
      assert.equal((await t.request('DELETE', path, { key: other.key })).status, 404);
      const list = await t.request('GET', '/v2/webhooks', { key: other.key });
      assert.equal(list.body.meta.total, 0);
      const mine = await t.request('GET', path);
      assert.equal(mine.body.data.attributes.active, true, 'untouched');
      assert.equal((await t.request('GET', '/v2/webhooks/not-a-uuid')).status, 404);
      assert.equal((await t.request('GET', '/v2/webhooks/x', { key: null })).status, 401);
    });

    test('GET /webhooks/events: the catalogue by category, 43 events with descriptions', async () => {
      const res = await t.request('GET', '/v2/webhooks/events');
      assert.equal(res.status, 200);
      const cats = res.body.data;
      assert.ok(cats.length >= 5);
      for (const c of cats) {
        assert.equal(c.type, 'webhook_event_category');
        assert.ok(c.id && c.attributes.name);
        for (const e of c.attributes.events) assert.ok(e.name && e.description.length > 5, e.name);
      }
      const names = cats.flatMap((c: any) => c.attributes.events.map((e: any) => e.name));
      assert.equal(names.length, 43);
      assert.deepEqual([...names].sort(), [...EVENT_NAMES].sort());
      assert.equal(cats[0].id, 'tracking-request-events');
      assert.equal(cats[0].attributes.events[0].name, 'tracking_request.succeeded');
    });

    test('GET /webhooks/ips lists the configured source addresses', async () => {
      const res = await t.request('GET', '/v2/webhooks/ips');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.webhook_notification_ips, SOURCE_IPS.split(','));
      assert.ok(!Number.isNaN(Date.parse(res.body.last_updated)));
      const none = await strict.request('GET', '/v2/webhooks/ips');
      assert.deepEqual(none.body.webhook_notification_ips, []);
    });

    test('trigger POSTs a signed sample to the receiver and answers without its body; nothing stored', async () => {
      const stored = [await count('webhook_notifications'), await count('domain_events')];
      receiver.received.length = 0;
      receiver.answer(200);
      const secret = 'optional-test-secret';
      const res = await t.request('POST', '/v2/webhooks/trigger', {
        body: { url: receiver.url, event: 'tracking_request.succeeded', secret },
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.status, 200);
      assert.ok(!res.text.includes(RECEIVER_ANSWER), 'the receiver’s answer is never returned');
      const r = res.body;
      assert.equal(r.url, receiver.url);
      assert.equal(r.event, 'tracking_request.succeeded');
      assert.equal(r.succeeded, true);
      assert.equal(r.status_code, 200);
      assert.equal(r.error, null);
      assert.equal(typeof r.duration_ms, 'number');
      assert.equal(r.response_body, undefined);
      assert.equal(receiver.received.length, 1);
      const got = receiver.received[0]!;
      assert.equal(got.body, r.request_body);
      assert.equal(got.headers['content-type'], 'application/json');
      assert.equal(got.headers['x-service-webhook-signature'], legacySignature(secret, got.body));
      assert.equal(
        r.request_headers['x-service-webhook-signature'],
        got.headers['x-service-webhook-signature'],
      );
      const standard = verifyStandard({
        secret,
        headers: got.headers as Record<string, string>,
        body: got.body,
      });
      assert.deepEqual(standard, { ok: true });
      const doc = JSON.parse(got.body);
      assert.equal(doc.data.type, 'webhook_notification');
      assert.equal(doc.data.id, got.headers['webhook-id']);
      assert.equal(doc.data.attributes.event, 'tracking_request.succeeded');
      assert.deepEqual(doc.data.relationships.webhook, { data: null });
      assert.ok(Array.isArray(doc.included));
      assert.deepEqual([await count('webhook_notifications'), await count('domain_events')], stored);
    });

    test('trigger without a secret sends no signature; a failing receiver is reported, not thrown', async () => {
      receiver.received.length = 0;
      receiver.answer(500);
      const res = await t.request('POST', '/v2/webhooks/trigger', {
        body: { url: receiver.url, event: 'container.transport.vessel_arrived' },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.succeeded, false);
      assert.equal(res.body.status_code, 500);
      assert.equal(res.body.error, 'http_500');
      assert.ok(!res.text.includes(RECEIVER_ANSWER));
      const got = receiver.received[0]!;
      assert.equal(got.headers['x-service-webhook-signature'], undefined);
      assert.equal(got.headers['webhook-signature'], undefined);
      assert.ok(got.headers['webhook-id']);
      assert.equal(res.body.request_headers['x-service-webhook-signature'], undefined);
      assert.equal(JSON.parse(got.body).data.attributes.event, 'container.transport.vessel_arrived');
      receiver.answer(200);

      // Nobody listening: no status code, an error code.
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const refused = await t.request('POST', '/v2/webhooks/trigger', {
        body: { url: `http://127.0.0.1:${port}/gone`, event: 'tracking_request.failed' },
      });
      assert.equal(refused.status, 200);
      assert.equal(refused.body.succeeded, false);
      assert.equal(refused.body.status_code, null);
      assert.equal(refused.body.error, 'connection_refused');
    });

    test('trigger validation: unknown event, refused URL, missing url', async () => {
      const unknown = await t.request('POST', '/v2/webhooks/trigger', {
        body: { url: receiver.url, event: 'tracking_request.exploded' },
      });
      assert.equal(unknown.status, 422);
      assert.equal(unknown.body.errors[0].source.pointer, '/event');
      assert.equal(unknown.body.errors[0].code, 'unknown_event');
      receiver.received.length = 0;
      const insecure = await strict.request('POST', '/v2/webhooks/trigger', {
        body: { url: receiver.url, event: 'tracking_request.succeeded' },
      });
      assert.equal(insecure.status, 422);
      assert.equal(insecure.body.errors[0].source.pointer, '/url');
      assert.equal(insecure.body.errors[0].code, 'insecure_scheme');
      const loop = await strict.request('POST', '/v2/webhooks/trigger', {
        body: { url: receiver.url.replace('http:', 'https:'), event: 'tracking_request.succeeded' },
      });
      assert.equal(loop.status, 422);
      assert.equal(loop.body.errors[0].code, 'blocked_address');
      assert.equal(receiver.received.length, 0, 'nothing was sent');
      const missing = await t.request('POST', '/v2/webhooks/trigger', {
        body: { event: 'tracking_request.succeeded' },
      });
      assert.equal(missing.status, 422);
      assert.equal(missing.body.errors[0].source.pointer, '/url');
    });
  });
}
