// The console's Alerts page (issue 32 item 3) in Debian's Chromium against a real server: a rule
// made through the page, a bad address refused with the API's error next to its field, the rule
// listed (also after a reload: it is the server's), edited and deleted. The API answers are
// checked too, so the page cannot pass by showing what it only thinks it saved.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { chromiumMissing, launchChromium } from './harness.ts';

for (const engine of ENGINES) {
  describe(`the Alerts page in Chromium [${engine}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let browser: Browser;
    before(async () => {
      [t, browser] = await Promise.all([startTestApp(engine), launchChromium()]);
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    test('create a rule (a bad address is refused at its field), see it listed, edit it, delete it', async () => {
      const rules = async () => (await t.request('GET', '/v2/alert_rules')).body.data;
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(20_000);
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => {
        // The browser logs the 422 it was meant to get; anything else is a problem.
        if (m.type() === 'error' && !/status of 422/.test(m.text())) problems.push(m.text());
      });
      try {
        await page.goto(`${t.url}/`);
        await page.getByLabel('API key').fill(t.key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Shipments', level: 1 }).waitFor();
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Alerts' }).click();
        await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
        await page.getByText('No alert rules yet.').waitFor();
        // No SMTP_OUT_URL on this server: the page says nothing will be sent.
        await page.getByRole('note').filter({ hasText: 'SMTP_OUT_URL is not set' }).waitFor();

        const form = page.getByRole('form', { name: 'New alert rule' });
        await form.getByLabel('Recipients').fill('ops@example.com\nnot-an-address');
        await form.getByRole('checkbox', { name: 'container.transport.available', exact: true }).check();
        await form.getByRole('checkbox', { name: 'shipment.estimated.arrival', exact: true }).check();
        await form.getByLabel('Schedule').selectOption('daily');
        await form.getByLabel('At (HH:MM)').fill('07:30');
        await form.getByLabel('Time zone').fill('Europe/Berlin');
        await form.getByLabel('Only shipments tagged').fill('priority, customer-a');
        await form.getByRole('button', { name: 'Create alert rule' }).click();

        // The API's 422, next to the recipients, the field marked and described by it.
        const recipients = form.getByLabel('Recipients');
        const error = form.locator('#ar-new-recipients-error');
        await error.waitFor();
        assert.equal(await error.innerText(), '"not-an-address" is not an e-mail address.');
        assert.equal(await recipients.getAttribute('aria-invalid'), 'true');
        assert.equal(await recipients.getAttribute('aria-describedby'), 'ar-new-recipients-error');
        assert.equal(await form.locator('.field-error').count(), 1, 'no other field is blamed');
        assert.deepEqual(await rules(), [], 'nothing was created');

        await recipients.fill('ops@example.com');
        await form.getByRole('button', { name: 'Create alert rule' }).click();
        const card = page.getByRole('article', { name: 'Alert rule for ops@example.com' });
        await card.waitFor();
        assert.equal(await error.count(), 0, 'the error is gone once the rule is saved');
        const [saved] = await rules();
        assert.ok(saved, 'the rule is on the server');
        assert.deepEqual(
          { ...saved.attributes, next_digest_at: undefined, created_at: undefined, updated_at: undefined },
          {
            events: ['container.transport.available', 'shipment.estimated.arrival'],
            recipients: ['ops@example.com'],
            schedule: 'daily',
            daily_at: '07:30',
            time_zone: 'Europe/Berlin',
            filter: { tags: ['priority', 'customer-a'], custom_fields: {} },
            next_digest_at: undefined,
            created_at: undefined,
            updated_at: undefined,
          },
        );

        // Listed from the server after a reload.
        await page.reload();
        await card.waitFor();
        const text = await card.innerText();
        assert.match(text, /Daily at 07:30 \(Europe\/Berlin\) · next /);
        assert.match(text, /Shipments tagged priority or customer-a/);
        assert.match(text, /2 events: container\.transport\.available, shipment\.estimated\.arrival/);

        // Edit: e-mail at once instead.
        await card.getByRole('button', { name: 'Edit' }).click();
        const edit = card.getByRole('form', { name: 'Edit alert rule' });
        await edit.getByLabel('Schedule').selectOption('immediate');
        await edit.getByRole('button', { name: 'Save' }).click();
        await card.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        assert.match(await card.innerText(), /Immediately · Shipments tagged/);
        const [edited] = await rules();
        assert.equal(edited.attributes.schedule, 'immediate');
        assert.equal(edited.attributes.daily_at, null);

        await card.getByRole('button', { name: 'Delete' }).click();
        await card.getByRole('button', { name: 'Delete rule' }).click();
        await page.getByText('No alert rules yet.').waitFor();
        assert.equal(await card.count(), 0);
        assert.deepEqual(await rules(), [], 'deleted on the server');
        assert.deepEqual(problems, []);
      } finally {
        await page.close();
      }
    });
  });
}
