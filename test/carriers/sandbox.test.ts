import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DcsaEvent } from '../../sim/events.ts';
import { createSandboxAdapter } from '../../src/carriers/sandbox.ts';
import type { LookupResult, NumberType } from '../../src/carriers/types.ts';

const DAY = 86_400_000;
const TYPES: NumberType[] = ['bill_of_lading', 'booking_number', 'container'];

/** A sandbox on a hand-driven clock, starting at a fixed epoch. */
function manual(epoch = Date.parse('2026-03-01T00:00:00Z')) {
  let now = epoch;
  const adapter = createSandboxAdapter({ clock: () => new Date(now), epoch: new Date(epoch) });
  return { adapter, advance: (days: number) => (now += days * DAY) };
}

const eventsOf = (r: LookupResult) => {
  assert.equal(r.kind, 'found');
  if (r.kind !== 'found') return [];
  // The simulator speaks DCSA; the adapter must be able to read every event it sends.
  for (const record of r.snapshot.records)
    assert.ok(record.event, `unreadable: ${JSON.stringify(record.raw)}`);
  return r.snapshot.records.map((x) => x.raw as DcsaEvent);
};

describe('sandbox adapter (SCAC TEST)', () => {
  it('keeps a bounded number of built journeys: an evicted one is built again the same, its containers still resolve', async () => {
    const { adapter } = manual();
    const first = eventsOf(await adapter.lookup('bill_of_lading', 'SIMBL1C0000001'));
    const container = first.find((e) => e.equipmentReference)?.equipmentReference;
    assert.ok(container);
    // More new numbers than the sandbox keeps journeys of (JOURNEYS_KEPT in sandbox.ts).
    for (let i = 2; i <= 260; i++)
      assert.equal(
        (await adapter.lookup('bill_of_lading', `SIMBL1C${String(i).padStart(7, '0')}`)).kind,
        'found',
      );
    assert.deepEqual(eventsOf(await adapter.lookup('bill_of_lading', 'SIMBL1C0000001')), first);
    assert.equal((await adapter.lookup('container', container)).kind, 'found');
  });

  it('declares SCAC TEST and all three number types', () => {
    const a = createSandboxAdapter();
    assert.equal(a.scac, 'TEST');
    assert.deepEqual([...a.numberTypes].sort(), [...TYPES].sort());
  });

  it('TEST-TR-SUCCEEDED is delivered at once (empty return still to come), for every number type, on the real clock', async () => {
    const a = createSandboxAdapter();
    for (const type of TYPES) {
      const events = eventsOf(await a.lookup(type, 'TEST-TR-SUCCEEDED'));
      const codes = events
        .filter((e) => e.eventClassifierCode === 'ACT')
        .map((e) => e.equipmentEventTypeCode ?? e.transportEventTypeCode);
      for (const c of ['GTOT', 'GTIN', 'LOAD', 'DEPA', 'ARRI', 'DISC'])
        assert.ok(codes.includes(c), `${type}: ${c}`);
      assert.ok(
        events.some((e) => e.equipmentEventTypeCode === 'GTOT' && e.emptyIndicatorCode === 'LADEN'),
        `${type}: picked up`,
      );
      // The empty return is a day ahead, so the demo shipment stays tracked.
      assert.ok(
        !events.some(
          (e) =>
            e.equipmentEventTypeCode === 'GTIN' &&
            e.emptyIndicatorCode === 'EMPTY' &&
            e.eventClassifierCode === 'ACT',
        ),
        type,
      );
      const boxes = new Set(events.flatMap((e) => (e.equipmentReference ? [e.equipmentReference] : [])));
      assert.equal(boxes.size, type === 'container' ? 1 : 2);
    }
  });

  it('TEST-TR-SUCCEEDED keeps both empty returns ahead at any time of the day', async () => {
    const today = Math.floor(Date.now() / DAY) * DAY;
    for (const minutes of [0, 17 * 60 + 30, 24 * 60 - 1]) {
      const now = today + minutes * 60_000;
      const a = createSandboxAdapter({ clock: () => new Date(now) });
      const events = eventsOf(await a.lookup('bill_of_lading', 'TEST-TR-SUCCEEDED'));
      const returned = events.filter(
        (e) =>
          e.equipmentEventTypeCode === 'GTIN' &&
          e.emptyIndicatorCode === 'EMPTY' &&
          e.eventClassifierCode === 'ACT',
      );
      assert.equal(returned.length, 0, `at ${minutes} min past midnight UTC`);
      assert.ok(events.some((e) => e.equipmentEventTypeCode === 'DISC' && e.eventClassifierCode === 'ACT'));
    }
  });

  it('TEST-TR-FAILED fails permanently; unknown numbers are not found', async () => {
    const a = createSandboxAdapter();
    for (const type of TYPES) {
      const r = await a.lookup(type, 'TEST-TR-FAILED');
      assert.equal(r.kind, 'permanent_failure');
      assert.equal(r.kind === 'permanent_failure' && r.reason, 'not_found');
      assert.ok(r.kind === 'permanent_failure' && r.detail.length > 0);
    }
    for (const [type, n] of [
      ['bill_of_lading', 'MAEU123456789'],
      ['container', 'MSKU9070323'],
      ['booking_number', 'SIMNONE1'],
      ['container', ''],
      ['bill_of_lading', 'x'.repeat(500)],
    ] as const) {
      assert.deepEqual(await a.lookup(type, n), { kind: 'not_found' });
    }
  });

  it('answers scenario numbers like the simulator, following its clock', async () => {
    const { adapter, advance } = manual();
    const before = eventsOf(await adapter.lookup('bill_of_lading', 'SIMTS1'));
    assert.deepEqual(await adapter.lookup('bill_of_lading', 'SIMLATE1'), { kind: 'not_found' });
    advance(3);
    const after = eventsOf(await adapter.lookup('bill_of_lading', 'SIMTS1'));
    assert.ok(after.length > before.length);
    assert.ok(eventsOf(await adapter.lookup('bill_of_lading', 'SIMLATE1')).length > 0);
    const box = eventsOf(await adapter.lookup('container', 'SIMU2000001'));
    assert.ok(box.every((e) => e.equipmentReference === undefined || e.equipmentReference === 'SIMU2000001'));
  });

  it('reports a cancelled booking as permanent_failure booking_cancelled', async () => {
    const { adapter } = manual();
    for (const [type, n] of [
      ['booking_number', 'SIMCANC1'],
      ['bill_of_lading', 'SIMCANC1'],
      ['booking_number', 'BKGCANC1'],
    ] as const) {
      const r = await adapter.lookup(type, n);
      assert.equal(r.kind, 'permanent_failure', n);
      assert.equal(r.kind === 'permanent_failure' && r.reason, 'booking_cancelled');
    }
  });

  it('SIMFLAKY numbers fail temporarily by request count, then answer', async () => {
    const { adapter } = manual();
    const results = [];
    for (let i = 0; i < 8; i++) results.push(await adapter.lookup('bill_of_lading', 'SIMFLAKY1'));
    assert.deepEqual(
      results.map((r) => (r.kind === 'temporary_failure' ? r.reason : r.kind)),
      [
        'shipping_line_unreachable',
        'shipping_line_unreachable',
        'shipping_line_unreachable',
        'unrecognized_response',
        'shipping_line_unreachable',
        'found',
        'found',
        'found',
      ],
    );
    const rateLimited = results[2]!;
    assert.equal(rateLimited.kind === 'temporary_failure' && rateLimited.retryAfterMs, 2000);
    assert.equal(
      (await adapter.lookup('bill_of_lading', 'SIMFLAKY1')).kind,
      'temporary_failure',
      'the cycle repeats',
    );
  });

  it('hands out copies: callers cannot corrupt the journey', async () => {
    const { adapter } = manual();
    const first = eventsOf(await adapter.lookup('bill_of_lading', 'SIMBL1C1'));
    first[0]!.eventID = 'changed';
    first.length = 0;
    const again = eventsOf(await adapter.lookup('bill_of_lading', 'SIMBL1C1'));
    assert.ok(again.length > 0);
    assert.notEqual(again[0]!.eventID, 'changed');
  });

  it('an already aborted lookup is a temporary failure, never a throw', async () => {
    const { adapter } = manual();
    const r = await adapter.lookup('bill_of_lading', 'SIMTS1', AbortSignal.abort());
    assert.equal(r.kind, 'temporary_failure');
  });
});
