// One ISO 6346 rule everywhere (issue 12): create validation, number inference, the DCSA adapter
// and the simulator all use src/util/iso6346.ts, so a number refused by one is refused by all. A
// category-R number with an otherwise correct check digit used to pass create and fail later.

import assert from 'node:assert/strict';
import { after, before, describe, it, test } from 'node:test';
import { lookupNumber } from '../../sim/library.ts';
import { isValidContainerNumber as adapterAccepts } from '../../src/carriers/dcsa/adapter.ts';
import { allShippingLines } from '../../src/reference/data.ts';
import { inferNumber } from '../../src/reference/infer.ts';
import { checkContainerNumber, checkDigit, containerNumber } from '../../src/util/iso6346.ts';
import { startTestApp, type TestApp, trBody } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';
import fc from '../helpers/fast-check.ts';

/** The weighted sum by hand, for any category letter (the module refuses R itself). */
function sumOf(first10: string): number {
  const values: Record<string, number> = {};
  let v = 10;
  for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
    if (v % 11 === 0) v++;
    values[ch] = v++;
  }
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (i < 4 ? values[first10[i]!]! : Number(first10[i])) * 2 ** i;
  return sum;
}
const digitFor = (first10: string) => (sumOf(first10) % 11) % 10;

const R_NUMBER = `MSCR123456${digitFor('MSCR123456')}`;

describe('ISO 6346: one module', () => {
  it('a remainder of 10 gives the check digit 0; the module agrees with the hand computation', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Z]{3}[UJZ]\d{6}$/), (first10) => {
        assert.equal(checkDigit(first10), digitFor(first10));
      }),
      { numRuns: 300 },
    );
    // A serial whose weighted sum leaves remainder 10: the check digit is 0.
    let ten: string | null = null;
    for (let s = 0; s < 1000 && !ten; s++) {
      const first10 = `TGHU${String(s).padStart(6, '0')}`;
      if (sumOf(first10) % 11 === 10) ten = first10;
    }
    assert.ok(ten);
    assert.equal(checkDigit(ten!), 0);
    assert.ok(checkContainerNumber(`${ten}0`).ok);
  });

  it('category R is refused by validation, inference, the adapter and the simulator alike', () => {
    assert.deepEqual(checkContainerNumber(R_NUMBER), { ok: false, reason: 'format' });
    assert.equal(adapterAccepts(R_NUMBER), false);
    const inferred = inferNumber(R_NUMBER, allShippingLines());
    assert.ok(!inferred.ok || inferred.value.number_type !== 'container', JSON.stringify(inferred));
    const epoch = Date.now();
    assert.equal(lookupNumber('container', R_NUMBER, { now: epoch, epoch }).kind, 'not_found');
    // And every simulator example container passes the same check.
    const n = containerNumber('SIMU', 200_000);
    assert.ok(checkContainerNumber(n).ok);
  });
});

for (const engine of ENGINES) {
  describe(`create validation uses the same rule [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine);
    });
    after(() => t?.close());

    test('an R-category number with a correct mod-11 digit is a 422 at create, pointing at request_number', async () => {
      const res = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({ request_type: 'container', request_number: R_NUMBER, scac: 'MAEU' }),
      });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.errors[0].code, 'invalid_number');
      assert.equal(res.body.errors[0].source.pointer, '/data/attributes/request_number');
      const good = await t.request('POST', '/v2/tracking_requests', {
        body: trBody({
          request_type: 'container',
          request_number: containerNumber('MSCU', 123456),
          scac: 'MAEU',
        }),
      });
      assert.equal(good.status, 201, good.text);
    });
  });
}
