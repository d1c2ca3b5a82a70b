// Each per-carrier option of a CARRIERS_CONFIG entry (docs/carriers.md, "Per-carrier differences")
// against the simulator mode of a carrier that needs it (sim/quirks.ts), through both the 2.2 and
// the 3.0.0 adapter as the registry builds them from a config entry: with the option the look-up
// works; without it the user sees a precise failure or "not found", never a crash.

import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { CarrierQuirks } from '../../sim/quirks.ts';
import { type RunningSimulator, type SimulatorOptions, startSimulator } from '../../sim/server.ts';
import { staticHeadersAuth } from '../../src/carriers/auth.ts';
import { createDcsaAdapter } from '../../src/carriers/dcsa/adapter.ts';
import { createDcsaClient } from '../../src/carriers/dcsa/client.ts';
import { createDcsaV3Adapter } from '../../src/carriers/dcsa-v3/adapter.ts';
import { createDcsaV3Client } from '../../src/carriers/dcsa-v3/client.ts';
import { buildCarrierRegistry } from '../../src/carriers/registry.ts';
import type { LookupResult } from '../../src/carriers/types.ts';
import { PROTOCOL_DEFAULTS } from '../../src/config/carrier-protocol.ts';
import { parseCarriersConfig } from '../../src/config/carriers.ts';

const ADAPTERS = ['dcsa-tnt-v2', 'dcsa-tnt-v3'] as const;
type Adapter = (typeof ADAPTERS)[number];
const EPOCH = '2026-03-02T00:00:00Z';

const running: RunningSimulator[] = [];
after(() => Promise.all(running.map((s) => s.close())));

async function simulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = await startSimulator({ epoch: EPOCH, speed: 0, ...options });
  running.push(sim);
  return sim;
}

const simOf = (quirks: CarrierQuirks, options: SimulatorOptions = {}) => simulator({ ...options, quirks });

/** The entry a user writes for this simulator, as the product reads it. */
function entry(sim: RunningSimulator, adapter: Adapter, extra: Record<string, unknown> = {}) {
  const [e] = parseCarriersConfig(
    JSON.stringify([
      {
        scac: 'HDMU',
        adapter,
        base_url: adapter === 'dcsa-tnt-v3' ? `${sim.url}/v3` : sim.url,
        auth: { type: 'headers', headers: { 'x-gateway-apikey': 'k' } },
        requests_per_minute: 100_000,
        number_types: ['bill_of_lading', 'booking_number', 'container'],
        timeout_ms: 2000,
        ...extra,
      },
    ]),
    { format: 'json' },
  );
  return e!;
}

/** The connection exactly as the registry builds it from the entry. */
function connect(
  sim: RunningSimulator,
  adapter: Adapter,
  extra: Record<string, unknown> = {},
  maxWaitMs = 5000,
) {
  return buildCarrierRegistry([entry(sim, adapter, extra)], { maxWaitMs }).get('HDMU')!;
}

/** The same connection with small pages (the registry always asks for 100 a page). */
function connectPaged(
  sim: RunningSimulator,
  adapter: Adapter,
  extra: Record<string, unknown>,
  pageSize: number,
) {
  const e = entry(sim, adapter, extra);
  const options = {
    baseUrl: e.base_url,
    auth: staticHeadersAuth({ 'x-gateway-apikey': 'k' }),
    protocol: e.protocol ?? PROTOCOL_DEFAULTS[adapter],
    pageSize,
  };
  const common = { scac: 'HDMU', numberTypes: e.number_types };
  return adapter === 'dcsa-tnt-v3'
    ? createDcsaV3Adapter({ ...common, client: createDcsaV3Client(options) })
    : createDcsaAdapter({ ...common, client: createDcsaClient(options) });
}

function found(r: LookupResult) {
  assert.equal(r.kind, 'found', JSON.stringify(r));
  return (r as Extract<LookupResult, { kind: 'found' }>).snapshot.records;
}

function failed(r: LookupResult, reason: string, detail: RegExp) {
  assert.ok(r.kind === 'temporary_failure' || r.kind === 'permanent_failure', JSON.stringify(r));
  assert.equal(r.reason, reason, JSON.stringify(r));
  assert.match(r.detail, detail);
  return r;
}

const ids = (records: { carrierId: string | null }[]) => records.map((r) => r.carrierId).sort();

const BOOKING = 'BKGTSU200000'; // the booking of container SIMU2000001 (docs/simulator.md)
const CONTAINER = 'SIMU2000001';

describe('booking + equipment required (requires_equipment)', () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter}: with the option, the booking is asked together with each container of ref_numbers`, async () => {
      const sim = await simOf({ requireEquipmentWith: ['carrierBookingReference'] });
      const hmm = connect(sim, adapter, { requires_equipment: ['booking_number'] });
      const both = found(
        await hmm.lookup('booking_number', BOOKING, undefined, { references: ['PO-4711', 'simu 200000-1'] }),
      );
      // The same events the container alone gives (every event of this one-box booking names it).
      const alone = found(await connect(sim, adapter).lookup('container', CONTAINER));
      assert.deepEqual(ids(both), ids(alone));
      assert.equal(sim.stats().byStatus[400], undefined, 'the carrier never refused a query');
    });

    it(`${adapter}: with the option and no container number, a precise failure without asking`, async () => {
      const sim = await simOf({ requireEquipmentWith: ['carrierBookingReference'] });
      const hmm = connect(sim, adapter, { requires_equipment: ['booking_number'] });
      failed(
        await hmm.lookup('booking_number', BOOKING, undefined, { references: ['PO-4711'] }),
        'invalid_number',
        /HDMU looks up a booking_number only together with a container number/,
      );
      assert.equal(sim.stats().total, 0);
    });

    it(`${adapter}: without the option, the refusal is what the user sees`, async () => {
      const sim = await simOf({ requireEquipmentWith: ['carrierBookingReference'] });
      const r = await connect(sim, adapter).lookup('booking_number', BOOKING, undefined, {
        references: [CONTAINER],
      });
      if (adapter === 'dcsa-tnt-v2') {
        // 2.2's standard rules read any 400 as "not found" (carriers answer unknown numbers so).
        assert.deepEqual(r, { kind: 'not_found' });
      } else {
        failed(
          r,
          'unrecognized_response',
          /HTTP 400: carrierBookingReference must be combined with equipmentReference/,
        );
      }
      assert.equal(sim.stats().byStatus[400], 1);
    });
  }

  it('several containers: one query each, the answers merged once per event', async () => {
    const sim = await simOf({ requireEquipmentWith: ['carrierBookingReference'] });
    const bl = found(await connect(await simulator(), 'dcsa-tnt-v2').lookup('bill_of_lading', 'SIMBL3C0001'));
    const containers = [
      ...new Set(
        bl.map((r) => (r.raw as { equipmentReference?: string }).equipmentReference).filter(Boolean),
      ),
    ] as string[];
    assert.equal(containers.length, 3);
    for (const adapter of ADAPTERS) {
      const hmm = connect(sim, adapter, { requires_equipment: ['booking_number', 'bill_of_lading'] });
      const before = sim.stats().total;
      const merged = found(
        await hmm.lookup('bill_of_lading', 'SIMBL3C0001', undefined, { references: containers }),
      );
      assert.equal(sim.stats().total - before, 3, `${adapter}: one query per container`);
      assert.equal(new Set(ids(merged)).size, merged.length, `${adapter}: no event twice`);
      assert.deepEqual(ids(merged), ids(bl), `${adapter}: the whole B/L, through its containers`);
    }
  });
});

describe('not-found answers (not_found)', () => {
  const REASON = 'No shipment found for the given reference';
  for (const adapter of ADAPTERS) {
    it(`${adapter}: an empty list is "not found" under the standard's rules`, async () => {
      const sim = await simulator();
      assert.deepEqual(await connect(sim, adapter).lookup('bill_of_lading', 'SIMNONE0001'), {
        kind: 'not_found',
      });
    });

    it(`${adapter}: a 404 is "not found" under the standard's rules`, async () => {
      const sim = await simulator({ notFoundStatus: 404 });
      assert.deepEqual(await connect(sim, adapter).lookup('bill_of_lading', 'SIMNONE0001'), {
        kind: 'not_found',
      });
      assert.equal(sim.stats().byStatus[404], 1);
    });

    it(`${adapter}: a 400 with the carrier's reason, read by a "400: reason" rule`, async () => {
      const sim = await simulator({ notFoundReason: REASON });
      const rules = { not_found: ['404', '400: no shipment found'] };
      assert.deepEqual(await connect(sim, adapter, rules).lookup('bill_of_lading', 'SIMNONE0001'), {
        kind: 'not_found',
      });
      // The rule reads only that reason: another refusal stays a failure the user can read.
      failed(
        await connect(sim, adapter, rules).lookup('bill_of_lading', 'TEST-TR-FAILED'),
        'unrecognized_response',
        /HTTP 400: .*TEST-TR-FAILED/,
      );
      // A known number is still found through the same connection.
      found(await connect(sim, adapter, rules).lookup('bill_of_lading', 'SIMBL1C0001'));
    });

    it(`${adapter}: the 400 without the rule`, async () => {
      const sim = await simulator({ notFoundReason: REASON });
      const r = await connect(sim, adapter).lookup('bill_of_lading', 'SIMNONE0001');
      // 2.2's default reads every 400 as not found; 3.0.0's reads a 400 as a refused query.
      if (adapter === 'dcsa-tnt-v2') assert.deepEqual(r, { kind: 'not_found' });
      else failed(r, 'unrecognized_response', /HTTP 400: No shipment found for the given reference/);
    });
  }
});

describe('paging header (paging_header)', () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter}: the carrier's own header is followed; without the option only the first page is read`, async () => {
      const standard = await simulator();
      const quirky = await simOf({ pagingHeader: 'X-Next-Page-Token' });
      const whole = found(
        await connectPaged(standard, adapter, {}, 5).lookup('bill_of_lading', 'SIMBL3C0001'),
      );
      assert.ok(whole.length > 10, `several pages (${whole.length} events)`);
      const withOption = found(
        await connectPaged(quirky, adapter, { paging_header: 'X-Next-Page-Token' }, 5).lookup(
          'bill_of_lading',
          'SIMBL3C0001',
        ),
      );
      assert.deepEqual(ids(withOption), ids(whole));
      const without = found(
        await connectPaged(quirky, adapter, {}, 5).lookup('bill_of_lading', 'SIMBL3C0001'),
      );
      assert.equal(without.length, 5, 'the walk stops where the standard header is missing');
    });
  }
});

describe('API-Version (api_version)', () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter}: the expected version is sent; without the option the carrier's refusal shows`, async () => {
      const sim = await simOf({ apiVersion: '1' });
      found(await connect(sim, adapter, { api_version: '1' }).lookup('bill_of_lading', 'SIMBL1C0001'));
      const r = await connect(sim, adapter).lookup('bill_of_lading', 'SIMBL1C0001');
      if (adapter === 'dcsa-tnt-v2') {
        // Under 2.2's default rules a 400 reads as not found; a "400: reason" rule keeps it visible.
        assert.deepEqual(r, { kind: 'not_found' });
        failed(
          await connect(sim, adapter, { not_found: ['404', '400: notFound'] }).lookup(
            'bill_of_lading',
            'SIMBL1C0001',
          ),
          'unrecognized_response',
          /HTTP 400: unsupportedApiVersion: API-Version 1 is required \(received 2\)/,
        );
      } else failed(r, 'unrecognized_response', /HTTP 400: API-Version 1 is required \(received 3\.0\.0\)/);
    });
  }
});

describe('requests per minute (requests_per_minute)', () => {
  for (const adapter of ADAPTERS) {
    it(`${adapter}: the budget keeps the connection under the carrier's limit; beyond it, a retry hint`, async () => {
      const sim = await simOf({ requestsPerMinute: 2 });
      const line = connect(sim, adapter, { requests_per_minute: 2 }, 100);
      const results = [];
      for (const n of ['SIMBL1C0001', 'SIMBL1C0002', 'SIMBL1C0003'])
        results.push(await line.lookup('bill_of_lading', n));
      found(results[0]!);
      const held = results.slice(1).find((r) => r.kind !== 'found');
      assert.ok(held, 'the budget held a look-up back');
      const f = failed(held, 'shipping_line_unreachable', /request budget for this carrier exhausted/);
      assert.ok(f.kind === 'temporary_failure' && (f.retryAfterMs ?? 0) > 0);
      assert.equal(sim.stats().byStatus[429], undefined, 'the carrier never had to refuse');
    });

    it(`${adapter}: without a fitting budget, the carrier's 429 + Retry-After reaches the user as a retry hint`, async () => {
      const sim = await simOf({ requestsPerMinute: 2 });
      const line = connect(sim, adapter, {}, 100);
      found(await line.lookup('bill_of_lading', 'SIMBL1C0001'));
      found(await line.lookup('bill_of_lading', 'SIMBL1C0002'));
      const f = failed(
        await line.lookup('bill_of_lading', 'SIMBL1C0003'),
        'shipping_line_unreachable',
        /rate limited by the carrier \(HTTP 429\)/,
      );
      assert.ok(f.kind === 'temporary_failure' && f.retryAfterMs! > 50_000 && f.retryAfterMs! <= 60_000);
      assert.equal(sim.stats().byStatus[429], 1);
    });

    it(`${adapter}: a short Retry-After is waited out within the look-up`, async () => {
      const sim = await simOf({ requestsPerMinute: 1, rateWindowMs: 300 });
      const line = connect(sim, adapter, {}, 2000);
      found(await line.lookup('bill_of_lading', 'SIMBL1C0001'));
      found(await line.lookup('bill_of_lading', 'SIMBL1C0002'));
      assert.equal(sim.stats().byStatus[429], 1, 'refused once, then answered after Retry-After: 1');
    });
  }
});
