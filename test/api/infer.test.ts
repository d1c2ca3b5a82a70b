import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allShippingLines } from '../../src/reference/data.ts';
import { inferNumber } from '../../src/reference/infer.ts';
import { checkDigit } from '../../src/util/iso6346.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ENGINES } from '../helpers/db.ts';

const withCheck = (first10: string) => `${first10}${checkDigit(first10)}`;

describe('inferNumber (pure)', () => {
  const lines = allShippingLines();
  const ok = (raw: string) => {
    const r = inferNumber(raw, lines);
    assert.ok(r.ok, raw);
    return r.value;
  };

  test('container numbers: owner prefix names the line; separators are ignored', () => {
    const v = ok(`msdu ${withCheck('MSDU123456').slice(4, 10)}-${withCheck('MSDU123456').at(-1)}`);
    assert.equal(v.number, withCheck('MSDU123456'));
    assert.equal(v.number_type, 'container');
    assert.equal(v.shipping_line.selected?.scac, 'MSCU');
  });

  test('leased boxes (unknown owner) give no prediction', () => {
    const v = ok(withCheck('TGHU123456'));
    assert.equal(v.validation.is_valid, true);
    assert.equal(v.shipping_line.decision, 'no_prediction');
    assert.equal(v.shipping_line.selected, null);
    assert.deepEqual(v.shipping_line.candidates, []);
  });

  test('alternative SCACs and the sandbox line work as BL prefixes', () => {
    assert.equal(ok('YMPR123456789').shipping_line.selected?.scac, 'YMLU');
    const sandbox = ok('TEST-TR-SUCCEEDED');
    assert.equal(sandbox.shipping_line.selected?.scac, 'TEST');
    assert.equal(sandbox.request_type, 'bill_of_lading');
  });

  test('garbage is refused with a reason', () => {
    for (const raw of ['', '   ', '!!!', 'ab', 'héllo123', 'X'.repeat(36), 'hello']) {
      const r = inferNumber(raw, lines);
      assert.equal(r.ok, false, raw);
    }
  });
});

for (const engine of ENGINES) {
  describe(`infer_number [${engine}]`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { RATE_LIMIT_INFER_PER_MINUTE: '1000' });
    });
    after(() => t.close());

    const infer = (body: unknown, key?: string) =>
      t.request('POST', '/v2/tracking_requests/infer_number', { body, ...(key ? { key } : {}) });

    test('valid container with a known owner prefix: auto-selected line', async () => {
      const res = await infer({ number: 'csqu3054383' });
      assert.equal(res.status, 200);
      const d = res.body.data;
      assert.equal(d.type, 'infer_number_result');
      assert.match(d.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(d.attributes, {
        number: 'CSQU3054383',
        number_type: 'container',
        request_type: 'container',
        validation: {
          is_valid: true,
          type: 'container',
          check_digit_passed: true,
          parsed_number: 'CSQU3054383',
          reason: null,
        },
        shipping_line: {
          decision: 'auto_select',
          selected: { scac: 'HLCU', name: 'Hapag-Lloyd', confidence: 0.95 },
          candidates: [{ scac: 'HLCU', name: 'Hapag-Lloyd', confidence: 0.95 }],
        },
      });
    });

    test('bad check digit: invalid, the line needs confirmation', async () => {
      const res = await infer({ number: 'CSQU3054384' });
      assert.equal(res.status, 200);
      const a = res.body.data.attributes;
      assert.equal(a.number_type, 'container');
      assert.equal(a.validation.is_valid, false);
      assert.equal(a.validation.check_digit_passed, false);
      assert.match(a.validation.reason, /expected 3/);
      assert.equal(a.shipping_line.decision, 'needs_confirmation');
      assert.equal(a.shipping_line.selected.scac, 'HLCU');
      assert.ok(a.shipping_line.selected.confidence < 0.8);
    });

    test('bill of lading with a known prefix or the line’s SCAC', async () => {
      const msc = (await infer({ number: 'MEDUFR030802' })).body.data.attributes;
      assert.equal(msc.number_type, 'bill_of_lading');
      assert.equal(msc.request_type, 'bill_of_lading');
      assert.equal(msc.validation.type, 'shipment');
      assert.equal(msc.validation.check_digit_passed, null);
      assert.equal(msc.validation.is_valid, true);
      assert.equal(msc.shipping_line.decision, 'auto_select');
      assert.equal(msc.shipping_line.selected.scac, 'MSCU');
      const maersk = (await infer({ number: 'MAEU 123456789' })).body.data.attributes;
      assert.equal(maersk.number, 'MAEU123456789');
      assert.equal(maersk.shipping_line.selected.scac, 'MAEU');
      const cosco = (await infer({ number: 'CCMJ1234567890' })).body.data.attributes;
      assert.equal(cosco.shipping_line.selected.scac, 'COSU');
    });

    test('unknown numbers: a booking when all digits, no prediction', async () => {
      const booking = (await infer({ number: '234567890' })).body.data.attributes;
      assert.equal(booking.number_type, 'booking');
      assert.equal(booking.request_type, 'booking_number');
      assert.equal(booking.shipping_line.decision, 'no_prediction');
      assert.equal(booking.shipping_line.selected, null);
      const unknown = (await infer({ number: 'QQ12345678' })).body.data.attributes;
      assert.equal(unknown.number_type, 'bill_of_lading');
      assert.equal(unknown.shipping_line.decision, 'no_prediction');
      assert.deepEqual(unknown.shipping_line.candidates, []);
    });

    test('the JSON:API body form is accepted too', async () => {
      const res = await infer({ data: { type: 'infer_number', attributes: { number: 'MEDUFR030802' } } });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.attributes.shipping_line.selected.scac, 'MSCU');
      const bad = await infer({ data: { attributes: { number: '???' } } });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.errors[0].source.pointer, '/data/attributes/number');
    });

    test('empty, garbage or missing numbers are 422 with a pointer', async () => {
      for (const [body, pointer, code] of [
        [{ number: '' }, '/number', 'blank'],
        [{ number: '   ' }, '/number', 'blank'],
        [{ number: '!!!###' }, '/number', 'invalid_number'],
        [{ number: 'hello' }, '/number', 'invalid_number'],
        [{}, '/number', 'blank'],
        [{ number: 42 }, '/number', 'invalid_type'],
        [{ number: 'X1', colour: 'red' }, '/colour', 'unknown_attribute'],
      ] as const) {
        const res = await infer(body);
        assert.equal(res.status, 422, JSON.stringify(body));
        assert.equal(res.body.errors[0].source.pointer, pointer, JSON.stringify(body));
        assert.equal(res.body.errors[0].code, code, JSON.stringify(body));
        assert.equal(res.body.errors[0].status, '422');
      }
    });

    test('has its own rate-limit bucket', async () => {
      const limited = await startTestApp(
        engine,
        { RATE_LIMIT_INFER_PER_MINUTE: '2' },
        { database: t.database },
      );
      try {
        const call = () =>
          limited.request('POST', '/v2/tracking_requests/infer_number', { body: { number: 'MEDUFR030802' } });
        assert.equal((await call()).status, 200);
        const second = await call();
        assert.equal(second.status, 200);
        assert.equal(second.headers.get('x-ratelimit-limit'), '2');
        const third = await call();
        assert.equal(third.status, 429);
        assert.match(third.body.errors[0].detail, /infer number/);
        assert.equal((await limited.request('GET', '/v2/ports/NLRTM')).status, 200);
      } finally {
        await limited.close();
      }
    });
  });
}
