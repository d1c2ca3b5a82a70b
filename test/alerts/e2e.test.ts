// Issue 32, item 3, "done means": a sandbox journey whose ETA slips (the simulator's SIMETA
// scenario, read by the real engine at known simulated days) alerts by e-mail through a real local
// SMTP server that parses every message: an immediate rule's e-mails arrive once per address (the
// first refused with 451 and retried, with no duplicate), the unsubscribe link stops one address,
// a daily rule's digest arrives at its hour in its time zone (the worker's clock is moved, not
// waited for), a rule whose filter does not match and another account's rule send nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENGINES } from '../helpers/db.ts';
import { eventually } from '../helpers/engine.ts';
import { useScenarioRig } from '../helpers/scenario-rig.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';

const ESTIMATE = 'container.transport.estimated.vessel_arrived';
const ORIGIN = 'https://track.example.com';
const body = (attributes: Record<string, unknown>) => ({ data: { type: 'alert_rule', attributes } });
const settle = () => new Promise((r) => setTimeout(r, 300));

for (const engine of ENGINES) {
  describe(`alert e-mails of a journey whose ETA slips [${engine}]`, () => {
    let smtp: SmtpSink;
    // Read by the rig when its app starts (its own before hook runs after this one).
    const env: Record<string, string> = {
      ALERT_RETRY_SCHEDULE: '20ms,20ms,20ms,20ms',
      ALERT_FROM: 'alerts@track.example.com',
      PUBLIC_BASE_URL: ORIGIN,
    };
    let clock = Date.now();
    before(async () => {
      smtp = await startSmtpSink();
      env.SMTP_OUT_URL = smtp.url;
    });
    after(() => smtp?.close());
    const rig = useScenarioRig(engine, { env, worker: () => ({ alertNow: () => new Date(clock) }) });

    test('immediate once per address, retried without duplicate; unsubscribe; digest at its hour', async () => {
      const s = await rig.track('SIMETA0001', 'bill_of_lading');
      await s.until(['created']);
      const sid = await s.shipmentId();
      const boxes = (await s.containers()).map((c: any) => c.attributes.number as string).sort();
      assert.ok(boxes.length >= 1);
      const post = async (attributes: Record<string, unknown>, key = s.key) => {
        const res = await rig.t.request('POST', '/v2/alert_rules', { key, body: body(attributes) });
        assert.equal(res.status, 201, res.text);
        assert.equal(res.body.meta.email_delivery, 'enabled');
        return res.body.data;
      };
      await post({ events: [ESTIMATE], recipients: ['ops@example.com', 'desk@example.com'] });
      const daily = await post({
        events: ['shipment.estimated.arrival'],
        recipients: ['digest@example.com'],
        schedule: 'daily',
        daily_at: '09:00',
        time_zone: 'America/New_York',
      });
      await post({
        events: [ESTIMATE],
        recipients: ['filtered@example.com'],
        filter: { tags: ['not-this-one'] },
      });
      const other = await rig.t.newAccount('other');
      await post(
        { events: [ESTIMATE, 'shipment.estimated.arrival'], recipients: ['other@example.com'] },
        other.key,
      );

      // The first slip (published on day 3.8); the server refuses the first message once.
      smtp.failNext(1);
      await rig.advanceTo(4);
      await s.refresh();
      const first = await eventually(
        async () =>
          smtp.to('ops@example.com').length >= boxes.length &&
          smtp.to('desk@example.com').length >= boxes.length &&
          smtp.mails,
        15_000,
        'the immediate alerts',
      );
      await settle();
      assert.equal(smtp.refused(), 1, 'the server refused one message, which was sent again');
      for (const address of ['ops@example.com', 'desk@example.com']) {
        const got = smtp.to(address);
        assert.equal(got.length, boxes.length, `${address}: one e-mail per container's estimate`);
        assert.equal(new Set(got.map((m) => m.messageId)).size, got.length, 'no message twice');
        assert.deepEqual(got.map((m) => /[A-Z]{4}\d{7}/.exec(m.subject)?.[0]).sort(), boxes);
        for (const m of got) {
          assert.equal(m.from, 'alerts@track.example.com');
          assert.match(m.subject, /Estimated time of arrival at the port of discharge changed/);
          for (const part of [m.text, m.html]) {
            assert.match(part, /SIMETA0001/);
            assert.match(part, /Arrival estimate/);
            assert.match(part, /Estimate moved/);
            assert.ok(part.includes(`${ORIGIN}/#/shipments/${sid}`), 'links to the shipment in the console');
            assert.ok(
              part.includes(`${ORIGIN}/v2/alert_rules/unsubscribe?token=`),
              'carries its unsubscribe link',
            );
          }
          assert.match(
            m.headerLines,
            /^List-Unsubscribe:\s+<https:\/\/track\.example\.com\/v2\/alert_rules\/unsubscribe\?token=/m,
          );
        }
      }
      const retried = await rig.t.database.db
        .selectFrom('alert_messages')
        .select(['status', 'attempt_count'])
        .where('attempt_count', '>', 1)
        .execute();
      assert.deepEqual(retried, [{ status: 'sent', attempt_count: 2 }]);
      assert.equal(
        first.filter((m) => m.to.includes('digest@example.com')).length,
        0,
        'the digest waits for its hour',
      );
      assert.equal(smtp.to('filtered@example.com').length, 0, 'the tag filter matched nothing');
      assert.equal(
        smtp.to('other@example.com').length,
        0,
        "another account's rule sees nothing of this account",
      );

      // desk@ follows its unsubscribe link: no API key, a page that says only that.
      const link = /https:\/\/track\.example\.com(\/v2\/alert_rules\/unsubscribe\?token=[\w.-]+)/.exec(
        smtp.to('desk@example.com')[0]!.text,
      )![1]!;
      const page = await rig.t.request('GET', link, { key: null });
      assert.equal(page.status, 200, page.text);
      assert.doesNotMatch(page.text, /desk@|SIMETA|example\.com/);
      const rules = await rig.t.request('GET', '/v2/alert_rules', { key: s.key });
      const immediate = rules.body.data.find((r: any) => r.attributes.recipients.includes('ops@example.com'));
      assert.deepEqual(immediate.attributes.recipients, ['ops@example.com']);

      // The second slip (day 6.8): ops@ is alerted again, desk@ no more.
      await rig.advanceTo(7);
      await s.refresh();
      await eventually(
        async () => smtp.to('ops@example.com').length >= 2 * boxes.length,
        15_000,
        'the second alerts',
      );
      await settle();
      assert.equal(smtp.to('ops@example.com').length, 2 * boxes.length);
      assert.equal(smtp.to('desk@example.com').length, boxes.length, 'unsubscribed: nothing more');

      // The digest: nothing before 09:00 New York time, then one message with both slips.
      const due = Date.parse(daily.attributes.next_digest_at);
      clock = due - 60_000;
      await settle();
      assert.equal(smtp.to('digest@example.com').length, 0);
      clock = due + 1000;
      const [digest] = await eventually(
        async () => smtp.to('digest@example.com').length > 0 && smtp.to('digest@example.com'),
      );
      assert.equal(digest!.subject, 'Daily alert digest: 2 events');
      assert.equal(
        digest!.text.match(/Estimated time of arrival at the port of discharge changed \(shipment\)/g)
          ?.length,
        2,
      );
      assert.match(digest!.html, /America\/New_York/);
      await settle();
      assert.equal(smtp.to('digest@example.com').length, 1, 'one digest per address');
      const after = await rig.t.request('GET', `/v2/alert_rules/${daily.id}`, { key: s.key });
      assert.equal(
        Date.parse(after.body.data.attributes.next_digest_at),
        due + 86_400_000,
        'the next one, a day later',
      );
      assert.equal(smtp.to('other@example.com').length, 0);
    });
  });
}
