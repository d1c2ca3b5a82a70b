// `npm run screenshots`: the console's pictures (docs/console/*.png, shown in docs/console.md), taken in
// Debian's Chromium against a throw-away server with sandbox data. Not a test.
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderPdf } from '../helpers/doc-render.ts';
import { eventually } from '../helpers/engine.ts';
import { trackSandbox } from '../helpers/tracked.ts';
import { chromiumMissing, launchChromium, startConsoleFixture } from './harness.ts';

if (chromiumMissing) {
  process.stderr.write(`${chromiumMissing}\n`);
  process.exit(2);
}
const out = resolve(import.meta.dirname, '../../docs/console');
mkdirSync(out, { recursive: true });

const f = await startConsoleFixture('pglite');
const browser = await launchChromium();
try {
  const { t } = f;
  // A little more to look at: tags, a webhook with a delivered notification, a failed request.
  await t.request('PATCH', `/v2/shipments/${f.shipment.shipmentId}`, {
    body: {
      data: { type: 'shipment', attributes: { tags: ['customer-a', 'urgent'], ref_numbers: ['PO-4711'] } },
    },
  });
  const hook = await t.request('POST', '/v2/webhooks', {
    body: {
      data: { type: 'webhook', attributes: { url: f.receiver.url('/hooks/tracker'), description: 'ERP' } },
    },
  });
  if (hook.status !== 201) throw new Error(hook.text);
  // Two alert rules for the Alerts page (docs/alerts.md).
  for (const attributes of [
    {
      events: ['container.transport.available', 'container.pickup_lfd.changed'],
      recipients: ['ops@example.com', 'imports@example.com'],
      filter: { tags: ['urgent'] },
    },
    {
      events: ['shipment.estimated.arrival', 'container.transport.vessel_arrived'],
      recipients: ['planning@example.com'],
      schedule: 'daily',
      daily_at: '07:30',
      time_zone: 'Europe/Berlin',
    },
  ]) {
    const rule = await t.request('POST', '/v2/alert_rules', {
      body: { data: { type: 'alert_rule', attributes } },
    });
    if (rule.status !== 201) throw new Error(rule.text);
  }
  // Sandbox scenarios with a transshipment and with a slipped ETA (docs/simulator.md).
  for (const n of ['SIMTS0001', 'SIMETA0001']) await trackSandbox(t, f.worker, n);
  await t.request('POST', '/v2/tracking_requests', {
    body: {
      data: {
        type: 'tracking_request',
        attributes: { request_type: 'bill_of_lading', request_number: 'TEST-TR-FAILED', scac: 'TEST' },
      },
    },
  });
  // A bill of lading to read, for the Documents page.
  const form = new FormData();
  const pdf = await renderPdf(
    layoutOps(transportDoc(7, 'bill_of_lading', { scac: 'TEST' }), 'inline'),
    'helvetica',
  );
  form.append('file', new Blob([new Uint8Array(pdf)]), 'bill-of-lading.pdf');
  const upload = await fetch(`${t.url}/v2/documents`, {
    method: 'POST',
    headers: { authorization: `Token ${t.key}` },
    body: form,
  });
  if (upload.status !== 201) throw new Error(await upload.text());
  const documentId = ((await upload.json()) as { data: { id: string } }).data.id;
  f.worker.wake();
  await eventually(async () => f.receiver.at('/hooks/tracker').length >= 1, 15_000, 'a delivery');
  await eventually(
    async () => {
      const d = await t.request('GET', `/v2/documents/${documentId}`);
      return d.body.data.attributes.extraction_status === 'extracted';
    },
    30_000,
    'the document read',
  );

  const shoot = async (page: Page, hash: string, file: string, prepare?: (p: Page) => Promise<void>) => {
    await page.goto(`${t.url}/${hash}`);
    await page.locator('main h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    await prepare?.(page);
    await page.waitForTimeout(300);
    await page.screenshot({ path: resolve(out, file), fullPage: true });
    process.stderr.write(`docs/console/${file}\n`);
  };

  for (const [width, height, suffix] of [
    [1280, 800, ''],
    [390, 844, '-phone'],
  ] as const) {
    const context = await browser.newContext({ viewport: { width, height }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${t.url}/`);
    await page.getByLabel('API key').fill(t.key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Shipments' }).waitFor();
    if (!suffix) {
      await shoot(page, '#/shipments', 'shipments.png');
      await shoot(page, '#/tracking-requests', 'tracking-requests.png');
      await shoot(page, '#/webhooks', 'webhooks.png', async (p) => {
        await p.getByRole('button', { name: 'Notifications' }).first().click();
        await p.getByRole('button', { name: 'Redeliver' }).first().waitFor();
      });
      await shoot(page, '#/alerts', 'alerts.png', async (p) => {
        await p.getByRole('article').first().waitFor();
      });
      await shoot(page, `#/documents/${documentId}`, 'document.png', async (p) => {
        await p.getByRole('link', { name: 'Open document' }).waitFor();
      });
    }
    await shoot(page, `#/shipments/${f.shipment.shipmentId}`, `shipment${suffix}.png`);
    await context.close();
  }
} finally {
  await browser.close();
  await f.close();
}
