// Spreadsheets in the console (issue 32), in a real browser: the Import page sends a pasted CSV
// to POST /v2/tracking_requests/import and shows each row's outcome; the Export buttons download
// the list as CSV with the filters in force.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import { seedShipment } from '../helpers/seed.ts';
import { chromiumMissing, launchChromium } from './harness.ts';

for (const engine of ENGINES) {
  describe(`spreadsheets in the console, in Chromium [${engine}]`, { skip: chromiumMissing }, () => {
    let t: TestApp;
    let browser: Browser;
    let shipmentIds: string[];
    before(async () => {
      t = await startTestApp(engine);
      shipmentIds = [];
      for (let i = 0; i < 3; i++)
        shipmentIds.push((await seedShipment(t.database.db, t.accountId)).shipmentId);
      // Another account's shipment is in no export of this one.
      const other = await t.newAccount('other');
      await seedShipment(t.database.db, other.accountId);
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
      await t?.close();
    });

    test('import a CSV with one bad row: both outcomes shown; export lists as CSV', async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        await page.goto(`${t.url}/`);
        await page.getByLabel('API key').fill(t.key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Shipments', level: 1 }).waitFor();

        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import' }).click();
        await page.getByRole('heading', { name: 'Import tracking requests', level: 1 }).waitFor();
        await page
          .getByLabel('Or paste it here')
          .fill(
            'request_number,scac,request_type,ref_numbers\nMAEU555000111,MAEU,bill_of_lading,PO-7\nBOLZZ9,ZZZZ,bill_of_lading,\nMAEU555000222,MAEU,,\n',
          );
        await page.getByRole('button', { name: 'Import', exact: true }).click();
        await page.getByRole('status').filter({ hasText: '3 rows: 2 created, 1 not imported.' }).waitFor();
        const results = page.getByRole('region', { name: 'Import results' });
        const rows = results.locator('tbody tr');
        assert.equal(await rows.count(), 3);
        assert.deepEqual(await rows.locator('td:first-child').allInnerTexts(), ['2', '3', '4']);
        const bad = rows.nth(1);
        assert.match(await bad.innerText(), /BOLZZ9,ZZZZ/);
        assert.match(await bad.innerText(), /Not imported/);
        assert.match(await bad.locator('.row-errors').innerText(), /^scac: .+\(unknown_scac\)$/);
        assert.equal(await bad.getByRole('link').count(), 0);
        assert.match(await rows.nth(0).innerText(), /Created/);
        assert.match(await rows.nth(2).innerText(), /Created/);

        // A created row links to its tracking request; that page exports what it shows.
        await rows.nth(0).getByRole('link', { name: 'Tracking request MAEU555000111' }).click();
        await page.getByRole('heading', { name: 'Tracking requests', level: 1 }).waitFor();
        const table = page.getByRole('region', { name: 'Tracking requests table' });
        await table.getByText('MAEU555000111').waitFor();
        assert.equal(await table.locator('tbody tr').count(), 1);
        const [trFile] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Export requests (CSV)' }).click(),
        ]);
        assert.equal(trFile.suggestedFilename(), 'tracking_requests.csv');
        const trRows = parse(await readFile((await trFile.path())!, 'utf8'), { columns: true }) as Array<
          Record<string, string>
        >;
        assert.deepEqual(
          trRows.map((r) => [r.request_number, r.scac, r.ref_numbers]),
          [['MAEU555000111', 'MAEU', 'PO-7']],
          'the number filter in force',
        );

        // The shipments list's export: every shipment of the account, not only the page shown.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Shipments' }).click();
        await page.getByRole('region', { name: 'Shipments table' }).waitFor();
        const [shipFile] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('button', { name: 'Export shipments (CSV)' }).click(),
        ]);
        assert.equal(shipFile.suggestedFilename(), 'shipments.csv');
        const shipRows = parse(await readFile((await shipFile.path())!, 'utf8'), { columns: true }) as Array<
          Record<string, string>
        >;
        assert.deepEqual(shipRows.map((r) => r.id).sort(), shipmentIds.slice().sort());
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  });
}
