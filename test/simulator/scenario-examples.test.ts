// Issue 12: every scenario listed at GET /control/scenarios has an example number for each number
// type it supports, and each example resolves at the simulator's DCSA endpoint for that type.
// Generic over the table (scenarios added to sim/scenarios.ts are checked without touching this
// file); only the scenarios whose story is "never found" or "always fails" are named.

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isValidContainerNumber } from '../../src/util/iso6346.ts';
import { spawnSimulator } from '../helpers/simulator.ts';

interface Row {
  pattern: string;
  summary: string;
  numberTypes: string[];
  examples: Record<string, string>;
}

const QUERY: Record<string, string> = {
  bill_of_lading: 'transportDocumentReference',
  booking_number: 'carrierBookingReference',
  container: 'equipmentReference',
};

/** Scenarios whose examples, by design, do not resolve: how they answer instead. */
const NEGATIVE: Record<string, 'not_found' | 'failure'> = {
  SIMNONE: 'not_found',
  'TEST-TR-FAILED': 'failure',
};

// Late enough for the manifest-delayed (day 3) and booking-first (day 2.5) journeys to be visible,
// well inside the 62 days every scenario must fit in.
const DAY = 5;

/** GET with a client's retries: temporary failures (429, 5xx, a malformed body) are asked again. */
async function ask(url: string): Promise<{ res: Response; body: unknown }> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(url);
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const temporary = res.status === 429 || res.status >= 500 || body === undefined;
    if (!temporary || attempt === 10) return { res, body };
  }
}

describe('scenario table examples against the simulator process', () => {
  let sim: Awaited<ReturnType<typeof spawnSimulator>>;
  let table: Row[];
  before(async () => {
    // A short hang for SIMFLAKY, whose examples resolve after its failure cycle.
    sim = await spawnSimulator(['--flaky-hang-ms', '50']);
    const res = await fetch(`${sim.url}/control/scenarios`);
    assert.equal(res.status, 200);
    table = (await res.json()) as Row[];
    await sim.advance(DAY);
  });
  after(async () => {
    await sim?.close();
  });

  it('lists every scenario with an example for each number type it supports, and only those', () => {
    assert.ok(table.length >= 16, `${table.length} scenarios`);
    const patterns = table.map((r) => r.pattern);
    assert.equal(new Set(patterns).size, patterns.length, 'patterns are unique');
    for (const row of table) {
      assert.ok(row.summary.length > 10, `${row.pattern}: a summary`);
      assert.ok(row.numberTypes.length > 0, `${row.pattern}: supports some number type`);
      for (const type of row.numberTypes) {
        assert.ok(type in QUERY, `${row.pattern}: unknown number type ${type}`);
        assert.ok(row.examples[type], `${row.pattern}: an example ${type}`);
      }
      for (const type of Object.keys(row.examples))
        assert.ok(row.numberTypes.includes(type), `${row.pattern}: example for unsupported ${type}`);
    }
  });

  it('resolves each example for its number type at the DCSA endpoint', async () => {
    let checked = 0;
    for (const row of table) {
      for (const [type, number] of Object.entries(row.examples)) {
        const what = `${row.pattern} ${type} ${number}`;
        if (type === 'container' && row.pattern.startsWith('SIM'))
          assert.ok(isValidContainerNumber(number), `${what}: an ISO 6346 number`);
        const { res, body } = await ask(`${sim.url}/v2/events?${QUERY[type]}=${encodeURIComponent(number)}`);
        const negative = NEGATIVE[row.pattern];
        if (negative === 'failure') {
          assert.equal(res.status, 400, what);
          continue;
        }
        assert.equal(res.status, 200, what);
        assert.ok(Array.isArray(body), what);
        if (negative === 'not_found') {
          assert.deepEqual(body, [], `${what}: never found`);
          continue;
        }
        const events = body as Array<Record<string, any>>;
        assert.ok(events.length > 0, `${what}: found`);
        // The answer is about the number asked: its references carry it (or, for a test number
        // standing for its first container, the equipment events name one box).
        const mentions = (e: Record<string, any>) =>
          JSON.stringify(e).toUpperCase().includes(number.toUpperCase());
        if (type === 'container' && !isValidContainerNumber(number))
          assert.equal(new Set(events.map((e) => e.equipmentReference).filter(Boolean)).size, 1, what);
        else assert.ok(events.some(mentions), `${what}: the events reference the number`);
        checked++;
      }
    }
    assert.ok(checked >= 30, `${checked} examples resolved`);
  });
});
