import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ENGINES } from '../helpers/db.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';
import { type ConsoleFixture, chromiumMissing, launchChromium, startConsoleFixture } from './harness.ts';

// The web console in a real browser (Debian's Chromium through playwright-core): one browser for
// the file, a fresh context (so fresh sessionStorage) per walk, at desktop and phone widths.

const WIDTHS = [
  { name: 'desktop', width: 1280, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

/** Everything the page does that a person would call broken: console errors, 429s, other origins. */
function watch(page: Page, origin: string) {
  const problems: string[] = [];
  const expected: RegExp[] = [];
  let apiRequests = 0;
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected.some((re) => re.test(m.text())))
      problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith(origin)) problems.push(`request to another origin: ${r.url()}`);
    if (new URL(r.url()).pathname.startsWith('/v2/')) apiRequests++;
  });
  page.on('response', (r) => {
    if (r.status() === 429) problems.push(`429 from ${r.url()}`);
  });
  return {
    problems,
    expect: (re: RegExp) => expected.push(re),
    clearExpected: () => expected.splice(0),
    apiRequests: () => apiRequests,
  };
}

async function noHorizontalScroll(page: Page, where: string) {
  const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  assert.ok(overflow <= 0, `${where}: the page scrolls sideways by ${overflow}px`);
}

for (const engine of ENGINES) {
  describe(`web console in Chromium [${engine}]`, { skip: chromiumMissing }, () => {
    let browser: Browser;
    let f: ConsoleFixture;

    before(async () => {
      [browser, f] = await Promise.all([launchChromium(), startConsoleFixture(engine)]);
    });
    after(async () => {
      await browser?.close();
      await f?.close();
    });

    for (const size of WIDTHS) {
      test(`a walk through every page at ${size.name} width (${size.width}px)`, async () => {
        const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
        const page = await context.newPage();
        page.setDefaultTimeout(20_000);
        const w = watch(page, f.t.url);
        try {
          // Sign in: a wrong key shows an error and no data.
          await page.goto(`${f.t.url}/`);
          await page.getByRole('heading', { name: 'Sign in' }).waitFor();
          w.expect(/status of 401/);
          await page.getByLabel('API key').fill('trk_000000000000_wrong');
          await page.getByRole('button', { name: 'Sign in' }).click();
          await page
            .getByRole('alert')
            .getByText(/refused/)
            .waitFor();
          assert.equal(await page.getByRole('table').count(), 0);
          assert.equal(await page.evaluate(() => sessionStorage.length), 0);
          w.clearExpected();

          // With the keyboard: the key field has focus; Enter submits.
          await page.getByLabel('API key').fill('');
          await page.keyboard.type(f.t.key);
          await page.keyboard.press('Enter');
          await page.getByRole('heading', { name: 'Shipments' }).waitFor();
          const row = page.getByRole('row').filter({ hasText: 'TEST-TR-SUCCEEDED' });
          await row.waitFor();
          assert.match(await row.innerText(), /Test Line[\s\S]*Shanghai \(CNSGH\) → Long Beach \(USLGB\)/);
          assert.match(await row.innerText(), /Picked up|Arrived|In transit|Empty returned|Tracking stopped/);
          await noHorizontalScroll(page, 'shipments');

          // A reload keeps the session (sessionStorage).
          await page.reload();
          await page.getByRole('heading', { name: 'Shipments' }).waitFor();

          // Search by a container number, then for something that is not there.
          await page.getByRole('searchbox', { name: 'Search' }).fill(f.containerNumbers[0]!);
          await page.getByRole('button', { name: 'Search' }).click();
          await page.waitForURL(/q=/);
          await row.waitFor();
          await page.getByRole('searchbox', { name: 'Search' }).fill('NOPE0000000');
          await page.getByRole('searchbox', { name: 'Search' }).press('Enter');
          await page.getByText('No shipment has the number “NOPE0000000”.').waitFor();
          await page.getByRole('button', { name: 'Clear' }).click();

          // Shipment detail: containers, journey timeline, map.
          await page.getByRole('link', { name: 'TEST-TR-SUCCEEDED' }).click();
          await page.getByRole('heading', { name: /^Shipment TEST-TR-SUCCEEDED/ }).waitFor();
          for (const n of f.containerNumbers) await page.getByRole('cell', { name: n }).waitFor();
          await page.getByRole('heading', { name: `Journey of ${f.containerNumbers[0]}` }).waitFor();
          const timeline = page.locator('ol.timeline > li');
          assert.ok((await timeline.count()) >= 4);
          const steps = await timeline.allInnerTexts();
          assert.ok(
            steps.some((s) => /Loaded on vessel[\s\S]*Shanghai[\s\S]*Vessel TEST AURORA/.test(s)),
            steps.join('|'),
          );
          const map = page.getByRole('region', { name: 'Map' });
          await map.locator('path.land').first().waitFor({ state: 'attached' });
          assert.ok(
            ((await map.locator('path.land').first().getAttribute('d')) ?? '').length > 5000,
            'land drawn',
          );
          assert.ok((await map.locator('path.coast').count()) >= 1, 'coastline drawn');
          assert.ok((await map.locator('path.route').count()) >= 1, 'route drawn');
          assert.ok((await map.locator('circle.port').count()) >= 2, 'ports drawn');
          await page.getByRole('button', { name: 'Show journey' }).nth(1).click();
          await page.getByRole('heading', { name: `Journey of ${f.containerNumbers[1]}` }).waitFor();
          await noHorizontalScroll(page, 'shipment detail');

          // Webhooks: create one (no events checked = all events).
          await page.getByRole('link', { name: 'Webhooks' }).click();
          await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
          await page.getByText('(none checked: every event)').waitFor();
          const hookPath = `/hook-${size.name}`;
          const hookUrl = f.receiver.url(hookPath);
          await page.getByLabel('URL', { exact: true }).fill(hookUrl);
          await page.getByRole('button', { name: 'Create webhook' }).click();
          await page.getByText('Webhook created.').waitFor();
          const card = page.getByRole('article', { name: `Webhook ${hookUrl}` });
          await card.getByText('All events').waitFor();
          await noHorizontalScroll(page, 'webhooks');

          // Tracking requests: infer, then create one whose failure notifies the webhook.
          await page.getByRole('link', { name: 'Tracking requests' }).click();
          await page.getByRole('heading', { name: 'Tracking requests' }).waitFor();
          await page.getByLabel('Number').fill('TEST-TR-FAILED');
          await page.getByRole('button', { name: 'Infer carrier' }).click();
          await page
            .getByRole('status')
            .filter({ hasText: /carrier/i })
            .waitFor();
          await page.getByLabel('Type').selectOption('bill_of_lading');
          await page.getByLabel('SCAC').fill('TEST');
          await page.getByRole('button', { name: 'Track', exact: true }).click();
          await page.getByText('Tracking request for TEST-TR-FAILED created').waitFor();
          await page.getByRole('row').filter({ hasText: 'TEST-TR-FAILED' }).first().waitFor();
          await noHorizontalScroll(page, 'tracking requests');
          await eventually(async () => f.receiver.at(hookPath).length >= 1, 15_000, 'first delivery');
          await page.getByRole('button', { name: 'Refresh' }).click();
          await page.getByRole('row').filter({ hasText: 'Not found' }).first().waitFor();

          // The webhook's notifications: delivered, then redelivered from the console.
          await page.getByRole('link', { name: 'Webhooks' }).click();
          await card.getByRole('button', { name: 'Notifications' }).click();
          const note = card.getByRole('row').filter({ hasText: 'tracking_request.failed' });
          await note.getByText('Succeeded').waitFor();
          await note.getByRole('button', { name: 'Redeliver' }).click();
          await card.getByText('queued for redelivery').waitFor();
          await eventually(async () => f.receiver.at(hookPath).length >= 2, 15_000, 'redelivery');

          // Edit and rotate the secret.
          await card.getByRole('button', { name: 'Edit' }).click();
          await card.getByLabel('Description').fill(`edited at ${size.name}`);
          await card.getByRole('button', { name: 'Save' }).click();
          await card.getByText(`edited at ${size.name}`).waitFor();
          await card.getByRole('button', { name: 'Rotate secret' }).click();
          await card.getByText('New secret issued.').waitFor();

          assert.deepEqual(w.problems, []);
          assert.ok(w.apiRequests() < 60, `a walk took ${w.apiRequests()} API requests`);
        } finally {
          await context.close();
        }
      });
    }

    test('documents: upload a B/L, see it extracted and open its fields (desktop, then phone width)', async () => {
      const bl = `CONSBL${String(Date.now() % 1e6).padStart(6, '0')}`;
      const pdf = await renderPdf(
        layoutOps(transportDoc(31, 'bill_of_lading', { scac: 'TEST', bl }), 'inline'),
        'helvetica',
      );
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      page.setDefaultTimeout(30_000);
      const w = watch(page, f.t.url);
      try {
        await page.goto(`${f.t.url}/`);
        await page.getByLabel('API key').fill(f.t.key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('link', { name: 'Documents' }).click();
        await page.getByRole('heading', { name: 'Documents', level: 1 }).waitFor();
        await page
          .getByLabel('Upload document')
          .setInputFiles({ name: 'bl.pdf', mimeType: 'application/pdf', buffer: pdf });
        await page.getByRole('button', { name: 'Upload', exact: true }).click();
        await page.getByText('bl.pdf uploaded').waitFor();
        const row = page.getByRole('row').filter({ hasText: 'bl.pdf' });
        await row.getByText('Extracted').waitFor();
        assert.match(await row.innerText(), /Bill of lading/);
        await row.getByRole('link', { name: 'bl.pdf' }).click();
        await page.getByRole('heading', { name: 'Document bl.pdf' }).waitFor();
        const field = page.getByRole('row').filter({ hasText: 'Bill of lading number' });
        assert.match(await field.innerText(), new RegExp(`${bl}[\\s\\S]*\\d+ %`));
        const href = await page.getByRole('link', { name: 'Open document' }).getAttribute('href');
        const file = await fetch(href!);
        assert.equal(file.status, 200);
        assert.equal(
          Buffer.from(await file.arrayBuffer())
            .subarray(0, 5)
            .toString(),
          '%PDF-',
        );
        assert.deepEqual(w.problems, []);
        assert.ok(w.apiRequests() < 40, `the documents walk took ${w.apiRequests()} API requests`);
      } finally {
        await context.close();
      }
    });
  });
}
