// The shipment page's arrival estimate over time (issue 32), in a real browser: a journey whose
// ETA slips twice (the simulator's SIMETA scenario, read by the real engine at known simulated
// days), then the console draws the chart from GET /v2/shipments/{id}/changes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
// @ts-expect-error: the console's client modules are plain JavaScript served to the browser.
import { shiftText } from '../../src/console/client/eta-chart.js';
import { ENGINES } from '../helpers/db.ts';
import { useScenarioRig } from '../helpers/scenario-rig.ts';
import { chromiumMissing, launchChromium } from './harness.ts';

test('shifts read as days and hours', () => {
  assert.deepEqual(
    [shiftText(50), shiftText(-6), shiftText(48), shiftText(0.2)],
    ['+2 d 2 h', '−6 h', '+2 d', '+0 h'],
  );
});

for (const engine of ENGINES) {
  describe(`the arrival estimate chart in Chromium [${engine}]`, { skip: chromiumMissing }, () => {
    const rig = useScenarioRig(engine);
    let browser: Browser;
    before(async () => {
      browser = await launchChromium();
    });
    after(async () => {
      await browser?.close();
    });

    test('the shipment page shows how often the ETA moved and by how much', async () => {
      const s = await rig.track('SIMETA0001', 'bill_of_lading');
      await s.until(['created']);
      const sid = await s.shipmentId();
      const first = Date.parse((await s.shipment()).data.attributes.pod_eta_at);
      for (const day of [4, 7]) {
        await rig.advanceTo(day);
        await s.refresh();
      }
      const last = Date.parse((await s.shipment()).data.attributes.pod_eta_at);
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      try {
        await page.goto(`${rig.t.url}/`);
        await page.getByLabel('API key').fill(s.key);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('heading', { name: 'Shipments', level: 1 }).waitFor();
        await page.goto(`${rig.t.url}/#/shipments/${sid}`);
        const section = page.getByRole('region', { name: 'Arrival estimate over time' });
        await section.waitFor();
        const summary = await section.locator('.eta-summary').innerText();
        assert.match(summary, /^Moved 2 times, \+/);
        assert.ok(summary.includes(`${shiftText((last - first) / 3_600_000)} in all`), summary);
        const chart = section.getByRole('img');
        assert.match(
          (await chart.getAttribute('aria-label')) ?? '',
          /Estimated arrival over time\. Moved 2 times/,
        );
        // The first estimate and each move, one point each, along one stepped line.
        assert.equal(await chart.locator('circle').count(), 3);
        const d = (await chart.locator('path').getAttribute('d')) ?? '';
        assert.equal(d.match(/ V/g)?.length, 2, d);
        const ys = await chart
          .locator('circle')
          .evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('cy'))));
        assert.ok(ys[0]! > ys[1]! && ys[1]! > ys[2]!, `each later estimate drawn higher: ${ys}`);
        assert.equal(await section.getByRole('listitem').count(), 2);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  });
}
