import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imoNumber, isValidImo } from '../../sim/places.ts';
import { resolveReference } from '../../sim/scenarios.ts';
import { checkDigit, containerNumber, isValidContainerNumber } from '../../src/util/iso6346.ts';
import fc from '../helpers/fast-check.ts';

describe('ISO 6346 container numbers', () => {
  it('accepts published valid numbers and rejects a wrong check digit', () => {
    for (const n of ['CSQU3054383', 'APZU4812090', 'MSKU9070323']) assert.ok(isValidContainerNumber(n), n);
    assert.equal(checkDigit('CSQU305438'), 3);
    for (const n of ['CSQU3054384', 'CSQU305438', 'CSQ13054383', 'CSQX3054383', '']) {
      assert.ok(!isValidContainerNumber(n), n);
    }
  });

  it('builds numbers that always pass the check, and only one digit does', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Z]{3}[UJZ]$/),
        fc.integer({ min: 0, max: 999_999 }),
        (owner, serial) => {
          const n = containerNumber(owner, serial);
          assert.ok(isValidContainerNumber(n));
          const wrong = n.slice(0, 10) + ((Number(n[10]) + 1) % 10);
          assert.ok(!isValidContainerNumber(wrong));
        },
      ),
    );
  });

  it('every container of simulated shipments passes the check', () => {
    const epoch = Date.parse('2026-03-01T00:00:00Z');
    for (let i = 0; i < 200; i++) {
      const r = resolveReference('TRD', `SIMBL3C${i}`, epoch);
      assert.equal(r?.kind, 'shipment');
      if (r?.kind === 'shipment')
        for (const c of r.shipment.containers) assert.ok(isValidContainerNumber(c.number), c.number);
    }
  });

  it('vessel IMO numbers carry a valid check digit', () => {
    assert.ok(isValidImo('9074729')); // IMO's own example
    assert.equal(imoNumber(907472), '9074729');
    assert.ok(!isValidImo('9074728'));
  });
});
