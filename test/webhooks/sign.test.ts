import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  generateSecret,
  isValidSecret,
  legacySignature,
  signatureHeaders,
  standardKey,
  standardSignature,
  verifyLegacy,
  verifyStandard,
} from '../../src/webhooks/delivery/sign.ts';
import fc from '../helpers/fast-check.ts';

// Fixed vector, also printed in docs/webhook-signatures.md.
const SECRET = 'whsec_dGVzdC1zZWNyZXQtZm9yLWRvY3MtMDEyMzQ1Njc4OWFi';
const MSG_ID = '7b0d5f8e-3a52-4c1e-9d0a-2f6f3b1c9e11';
const TS = 1767225600;
const BODY = '{"data":{"id":"7b0d5f8e-3a52-4c1e-9d0a-2f6f3b1c9e11","type":"webhook_notification"}}';
const LEGACY_EXPECTED = '319f8ceb832a2bc33e3309c494ec26a94d3db265edfa40fa2d0f9d0bed5c8241';
const STANDARD_EXPECTED = 'v1,Q2jnTWCEn11/d3Qwr2HSTdAEQz0VvD1cTEdDHHU27Ac=';

describe('legacy signature', () => {
  test('is the hex HMAC-SHA256 of the raw body keyed with the secret string', () => {
    const independent = createHmac('sha256', SECRET).update(BODY).digest('hex');
    assert.equal(legacySignature(SECRET, BODY), independent);
    assert.equal(legacySignature(SECRET, Buffer.from(BODY)), independent);
    assert.match(independent, /^[0-9a-f]{64}$/);
  });

  test('matches the documented vector', () => {
    assert.equal(legacySignature(SECRET, BODY), LEGACY_EXPECTED);
  });

  test('verifyLegacy accepts the right signature only', () => {
    const sig = legacySignature(SECRET, BODY);
    assert.equal(verifyLegacy(SECRET, BODY, sig), true);
    assert.equal(verifyLegacy(SECRET, BODY, sig.toUpperCase()), true);
    assert.equal(verifyLegacy(SECRET, `${BODY} `, sig), false);
    assert.equal(verifyLegacy('other', BODY, sig), false);
    assert.equal(verifyLegacy(SECRET, BODY, sig.slice(0, 10)), false);
    assert.equal(verifyLegacy(SECRET, BODY, ''), false);
    assert.equal(verifyLegacy(SECRET, BODY, undefined), false);
    assert.equal(verifyLegacy(SECRET, BODY, `deadbeef,${sig}`), true);
  });
});

describe('standard webhooks signature', () => {
  test('matches the Standard Webhooks reference vector', () => {
    assert.equal(
      standardSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });

  test('matches an independent computation and the documented vector', () => {
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const independent = createHmac('sha256', key).update(`${MSG_ID}.${TS}.${BODY}`).digest('base64');
    assert.equal(standardSignature(SECRET, MSG_ID, TS, BODY), `v1,${independent}`);
    assert.equal(standardSignature(SECRET, MSG_ID, TS, BODY), STANDARD_EXPECTED);
  });

  test('secret handling', () => {
    const s = generateSecret();
    assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(s.slice(6), 'base64').length, 32);
    assert.notEqual(generateSecret(), s);
    assert.equal(isValidSecret(s), true);
    assert.equal(isValidSecret(SECRET), true);
    assert.equal(isValidSecret(`whsec_${Buffer.alloc(23).toString('base64')}`), false);
    assert.equal(isValidSecret(`whsec_${Buffer.alloc(65).toString('base64')}`), false);
    assert.equal(isValidSecret(`whsec_${Buffer.alloc(64).toString('base64')}`), true);
    assert.equal(isValidSecret('whsec_not*base64!'), false);
    assert.equal(isValidSecret('plain'), false);
    assert.throws(() => standardKey('whsec_***'), /invalid base64/);
    assert.throws(() => standardKey('whsec_'), /invalid base64/);
    // A free-text secret (test trigger) is used as raw UTF-8 bytes.
    assert.deepEqual(standardKey('my secret'), Buffer.from('my secret'));
    assert.throws(() => standardSignature(SECRET, MSG_ID, 1.5, BODY), /integer/);
  });

  test('verifyStandard: accepts, rejects tampering, enforces the tolerance', () => {
    const headers = signatureHeaders({
      secrets: [SECRET],
      legacyHeaderName: 'X-Sig',
      msgId: MSG_ID,
      timestamp: TS,
      body: BODY,
    });
    const v = (over: Partial<Parameters<typeof verifyStandard>[0]>) =>
      verifyStandard({ secret: SECRET, headers, body: BODY, nowSeconds: TS, ...over });
    assert.deepEqual(v({}), { ok: true });
    assert.deepEqual(v({ nowSeconds: TS + 300 }), { ok: true });
    assert.deepEqual(v({ nowSeconds: TS + 301 }), { ok: false, reason: 'timestamp_too_old' });
    assert.deepEqual(v({ nowSeconds: TS - 301 }), { ok: false, reason: 'timestamp_too_new' });
    assert.deepEqual(v({ body: `${BODY} ` }), { ok: false, reason: 'no_match' });
    assert.deepEqual(v({ secret: generateSecret() }), { ok: false, reason: 'no_match' });
    assert.deepEqual(v({ headers: { ...headers, 'webhook-id': 'other' } }), {
      ok: false,
      reason: 'no_match',
    });
    assert.deepEqual(v({ headers: { ...headers, 'webhook-timestamp': '1e9' } }), {
      ok: false,
      reason: 'bad_timestamp',
    });
    assert.deepEqual(v({ headers: { 'webhook-id': MSG_ID } }), { ok: false, reason: 'missing_headers' });
  });

  test('property: sign then verify round-trips for any body and id', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (body, id, ts) => {
          const secret = generateSecret();
          const h = signatureHeaders({
            secrets: [secret],
            legacyHeaderName: 'X-Sig',
            msgId: id,
            timestamp: ts,
            body,
          });
          assert.deepEqual(verifyStandard({ secret, headers: h, body, nowSeconds: ts }), { ok: true });
          assert.equal(verifyLegacy(secret, body, h['X-Sig']), true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('signatureHeaders', () => {
  test('single secret: legacy header, id, timestamp, one v1 entry', () => {
    const h = signatureHeaders({
      secrets: [SECRET],
      legacyHeaderName: 'X-SERVICE-Webhook-Signature',
      msgId: MSG_ID,
      timestamp: TS,
      body: BODY,
    });
    assert.deepEqual(h, {
      'webhook-id': MSG_ID,
      'webhook-timestamp': String(TS),
      'X-SERVICE-Webhook-Signature': LEGACY_EXPECTED,
      'webhook-signature': STANDARD_EXPECTED,
    });
  });

  test('rotation: current and previous secrets are both sent', () => {
    const previous = generateSecret();
    const older = generateSecret();
    const h = signatureHeaders({
      secrets: [SECRET, previous, older],
      legacyHeaderName: 'X-SERVICE-Webhook-Signature',
      msgId: MSG_ID,
      timestamp: TS,
      body: BODY,
    });
    assert.equal(h['X-SERVICE-Webhook-Signature'], legacySignature(SECRET, BODY));
    assert.equal(
      h['X-SERVICE-Webhook-Signature-Previous'],
      `${legacySignature(previous, BODY)},${legacySignature(older, BODY)}`,
    );
    const entries = h['webhook-signature']!.split(' ');
    assert.deepEqual(entries, [
      standardSignature(SECRET, MSG_ID, TS, BODY),
      standardSignature(previous, MSG_ID, TS, BODY),
      standardSignature(older, MSG_ID, TS, BODY),
    ]);
    // A receiver still on the previous secret verifies with either scheme.
    assert.deepEqual(verifyStandard({ secret: previous, headers: h, body: BODY, nowSeconds: TS }), {
      ok: true,
    });
    assert.equal(verifyLegacy(previous, BODY, h['X-SERVICE-Webhook-Signature-Previous']), true);
  });

  test('no secret: unsigned, ids only', () => {
    const h = signatureHeaders({
      secrets: [],
      legacyHeaderName: 'X-Sig',
      msgId: 'm',
      timestamp: 1,
      body: '',
    });
    assert.deepEqual(h, { 'webhook-id': 'm', 'webhook-timestamp': '1' });
  });
});
