// Alert rules through the API (issue 32, item 3): create, list (paged), read, edit and delete, each
// refusal of bad input with its code and pointer, the limits from the configuration, and another
// account seeing none of it. Without SMTP_OUT_URL the rules are kept and the answers say nothing
// is sent.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { recordDomainEvents } from '../../src/domain-events/record.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

const body = (attributes: Record<string, unknown>) => ({ data: { type: 'alert_rule', attributes } });
const ENV = {
  RATE_LIMIT_CREATE_PER_MINUTE: '1000',
  RATE_LIMIT_DEFAULT_PER_MINUTE: '1000',
  ALERT_MAX_RECIPIENTS: '3',
  ALERT_MAX_RULES: '4',
};

for (const engine of ENGINES) {
  describe(`alert rules API [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, ENV);
    });
    after(() => t?.close());

    test('create, read, list, edit, delete; another account sees none of it', async () => {
      const created = await t.request('POST', '/v2/alert_rules', {
        body: body({
          events: ['container.transport.available', 'shipment.estimated.arrival'],
          recipients: [' Ops@Example.com ', 'desk@example.org'],
          filter: { tags: ['urgent'] },
        }),
      });
      assert.equal(created.status, 201, created.text);
      const rule = created.body.data;
      assert.equal(rule.type, 'alert_rule');
      assert.deepEqual(rule.attributes.recipients, ['ops@example.com', 'desk@example.org']);
      assert.equal(rule.attributes.schedule, 'immediate');
      assert.equal(rule.attributes.daily_at, null);
      assert.equal(rule.attributes.time_zone, 'UTC');
      assert.equal(rule.attributes.next_digest_at, null);
      assert.deepEqual(rule.attributes.filter, { tags: ['urgent'], custom_fields: {} });
      assert.equal(rule.links.self, `/v2/alert_rules/${rule.id}`);
      // No SMTP_OUT_URL: the rule is kept, and the answer says no e-mail goes out.
      assert.equal(created.body.meta.email_delivery, 'disabled');

      const got = await t.request('GET', `/v2/alert_rules/${rule.id}`);
      assert.equal(got.status, 200, got.text);
      assert.deepEqual(got.body.data, rule);

      const daily = await t.request('POST', '/v2/alert_rules', {
        body: body({
          events: ['container.pickup_lfd.changed'],
          recipients: ['night@example.com'],
          schedule: 'daily',
          daily_at: '07:30',
          time_zone: 'Asia/Singapore',
        }),
      });
      assert.equal(daily.status, 201, daily.text);
      const next = Date.parse(daily.body.data.attributes.next_digest_at);
      assert.ok(next > Date.now() && next <= Date.now() + 86_400_000, daily.text);
      // 07:30 in Singapore (UTC+8) is 23:30 UTC.
      assert.equal(new Date(next).toISOString().slice(11, 16), '23:30');

      const page1 = await t.request('GET', '/v2/alert_rules?page[size]=1');
      assert.equal(page1.status, 200, page1.text);
      assert.equal(page1.body.meta.total, 2);
      assert.equal(page1.body.meta.email_delivery, 'disabled');
      assert.deepEqual(
        page1.body.data.map((r: any) => r.id),
        [daily.body.data.id],
      );
      assert.match(page1.body.links.next, /page%5Bnumber%5D=2|page\[number\]=2/);

      const edited = await t.request('PATCH', `/v2/alert_rules/${rule.id}`, {
        body: body({
          schedule: 'daily',
          daily_at: '18:00',
          time_zone: 'Europe/Berlin',
          recipients: ['ops@example.com'],
        }),
      });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.body.data.attributes.schedule, 'daily');
      assert.equal(edited.body.data.attributes.daily_at, '18:00');
      assert.deepEqual(edited.body.data.attributes.recipients, ['ops@example.com']);
      assert.deepEqual(edited.body.data.attributes.events, rule.attributes.events);
      assert.ok(edited.body.data.attributes.next_digest_at);
      // Back to immediate: daily_at goes with it.
      const back = await t.request('PATCH', `/v2/alert_rules/${rule.id}`, {
        body: body({ schedule: 'immediate' }),
      });
      assert.equal(back.status, 200, back.text);
      assert.equal(back.body.data.attributes.daily_at, null);
      assert.equal(back.body.data.attributes.next_digest_at, null);

      // Another account: nothing listed, nothing found, nothing changed or deleted.
      const other = await t.newAccount('other');
      const theirs = await t.request('GET', '/v2/alert_rules', { key: other.key });
      assert.equal(theirs.body.meta.total, 0);
      for (const [method, b] of [
        ['GET', undefined],
        ['PATCH', body({ recipients: ['x@example.com'] })],
        ['DELETE', undefined],
      ] as const) {
        const res = await t.request(method, `/v2/alert_rules/${rule.id}`, { key: other.key, body: b });
        assert.equal(res.status, 404, `${method}: ${res.text}`);
        assert.equal(res.body.errors[0].code, 'not_found');
      }

      const del = await t.request('DELETE', `/v2/alert_rules/${rule.id}`);
      assert.equal(del.status, 200, del.text);
      assert.equal((await t.request('GET', `/v2/alert_rules/${rule.id}`)).status, 404);
      assert.equal((await t.request('DELETE', `/v2/alert_rules/${rule.id}`)).status, 404);
      assert.equal((await t.request('GET', '/v2/alert_rules/not-a-uuid')).status, 404);
    });

    test('bad input: each problem named with its code and pointer', async () => {
      const refused = async (
        attributes: Record<string, unknown>,
        status: number,
        expect: Array<[string, string]>,
      ) => {
        const res = await t.request('POST', '/v2/alert_rules', { body: body(attributes) });
        assert.equal(res.status, status, `${JSON.stringify(attributes)}: ${res.text}`);
        const got = res.body.errors.map((e: any) => [e.code, e.source?.pointer ?? e.source?.parameter]);
        for (const want of expect)
          assert.deepEqual(
            got.find((g: string[]) => g[0] === want[0]),
            want,
            res.text,
          );
      };
      const ok = { events: ['container.created'], recipients: ['a@example.com'] };
      await refused({ ...ok, events: ['container.created', 'container.exploded'] }, 422, [
        ['unknown_event', '/data/attributes/events/1'],
      ]);
      await refused({ ...ok, recipients: ['a@example.com', 'not-an-address', 'b@localhost'] }, 422, [
        ['invalid_email', '/data/attributes/recipients/1'],
      ]);
      await refused({ ...ok, recipients: ['a@example.com', 'A@example.com'] }, 422, [
        ['not_unique', '/data/attributes/recipients/1'],
      ]);
      await refused({ ...ok, recipients: ['a@x.com', 'b@x.com', 'c@x.com', 'd@x.com'] }, 422, [
        ['too_long', '/data/attributes/recipients'],
      ]);
      await refused({ ...ok, time_zone: 'Mars/Olympus_Mons' }, 422, [
        ['invalid_time_zone', '/data/attributes/time_zone'],
      ]);
      await refused({ ...ok, schedule: 'daily' }, 422, [['blank', '/data/attributes/daily_at']]);
      await refused({ ...ok, daily_at: '08:00' }, 422, [['invalid', '/data/attributes/daily_at']]);
      await refused({ ...ok, filter: { custom_fields: { nope: 'x' } } }, 422, [
        ['unknown_reference', '/data/attributes/filter/custom_fields/nope'],
      ]);
      // The JSON shape: the route schema's 400s/422s.
      for (const bad of [
        { ...ok, schedule: 'weekly' },
        { ...ok, schedule: 'daily', daily_at: '25:00' },
        { ...ok, events: [] },
        { recipients: ['a@example.com'] },
        { ...ok, colour: 'red' },
      ]) {
        const res = await t.request('POST', '/v2/alert_rules', { body: body(bad) });
        assert.ok(
          res.status === 400 || res.status === 422,
          `${JSON.stringify(bad)}: ${res.status} ${res.text}`,
        );
      }
      // An edit is checked as the whole rule it makes.
      const r = await t.request('POST', '/v2/alert_rules', { body: body(ok) });
      assert.equal(r.status, 201, r.text);
      const res = await t.request('PATCH', `/v2/alert_rules/${r.body.data.id}`, {
        body: body({ schedule: 'daily' }),
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.errors[0].code, 'blank');
      await t.request('DELETE', `/v2/alert_rules/${r.body.data.id}`);
    });

    test('a daily rule made immediate sends what waited for its digest at once; nothing is stranded', async () => {
      const a = await t.newAccount('switch');
      const made = await t.request('POST', '/v2/alert_rules', {
        key: a.key,
        body: body({
          events: ['tracking_request.succeeded'],
          recipients: ['one@example.com', 'two@example.com'],
          schedule: 'daily',
          daily_at: '09:00',
        }),
      });
      assert.equal(made.status, 201, made.text);
      const id = made.body.data.id;
      const db = t.database.db;
      // Two events of the rule, recorded as the engine records them: both wait for the digest.
      await db.transaction().execute((tx) =>
        recordDomainEvents(tx, [
          {
            event: 'tracking_request.succeeded',
            account_id: a.accountId,
            reference_type: 'tracking_request',
          },
          {
            event: 'tracking_request.succeeded',
            account_id: a.accountId,
            reference_type: 'tracking_request',
          },
        ]),
      );
      const waiting = () =>
        db
          .selectFrom('alert_items')
          .select(['address'])
          .where('rule_id', '=', id)
          .where('message_id', 'is', null)
          .execute();
      assert.equal((await waiting()).length, 4);
      assert.equal((await messagesOf(id)).length, 0);

      const res = await t.request('PATCH', `/v2/alert_rules/${id}`, {
        key: a.key,
        body: body({ schedule: 'immediate', recipients: ['one@example.com'] }),
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.attributes.next_digest_at, null);
      // The address kept gets one digest of both events, due now; the one removed gets nothing.
      assert.deepEqual(await waiting(), []);
      const messages = await messagesOf(id);
      assert.deepEqual(
        messages.map((m) => [m.address, m.kind, m.status, m.items]),
        [['one@example.com', 'digest', 'pending', 2]],
      );
      assert.ok(messages[0]!.due, 'due at once');

      async function messagesOf(ruleId: string) {
        const r = await sql<{ address: string; kind: string; status: string; items: number; due: boolean }>`
          select m.address, m.kind, m.status, (select count(*)::int from alert_items i where i.message_id = m.id) as items,
                 m.next_attempt_at <= now() as due
            from alert_messages m where m.rule_id = ${ruleId} order by m.address`.execute(db);
        return r.rows;
      }
    });

    test('ALERT_MAX_RULES bounds the rules of one account, not of another', async () => {
      const a = await t.newAccount('full');
      const make = (key: string) =>
        t.request('POST', '/v2/alert_rules', {
          key,
          body: body({ events: ['container.created'], recipients: ['a@example.com'] }),
        });
      for (let i = 0; i < 4; i++) assert.equal((await make(a.key)).status, 201);
      const over = await make(a.key);
      assert.equal(over.status, 422, over.text);
      assert.equal(over.body.errors[0].code, 'limit_reached');
      const b = await t.newAccount('empty');
      assert.equal((await make(b.key)).status, 201);
    });

    test('an unsubscribe link that is not ours is a 404 that says nothing', async () => {
      for (const q of ['', '?token=abc', `?token=${'0'.repeat(36)}.YUBiLmNvbQ.${'x'.repeat(43)}`]) {
        const res = await t.request('GET', `/v2/alert_rules/unsubscribe${q}`, { key: null });
        assert.equal(res.status, 404, res.text);
        assert.match(res.headers.get('content-type') ?? '', /text\/html/);
        assert.doesNotMatch(res.text, /@|rule|account/i);
      }
    });
  });
}
