import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { classify } from '../../src/documents/extract/classify.ts';
import { buildLines, type Word } from '../../src/documents/extract/layout.ts';
import {
  containerNumbersIn,
  parseDate,
  repairContainerNumber,
  sizeType,
  weightKg,
} from '../../src/documents/extract/numbers.ts';
import { resolvePlace } from '../../src/documents/extract/ports.ts';
import { represent } from '../../src/documents/extract/represent.ts';
import { findSchema, schemaPayloadOf } from '../../src/documents/extract/schemas.ts';
import { detectFileKind } from '../../src/documents/file-type.ts';
import { readFile } from '../../src/documents/read/read.ts';
import { s3Client } from '../../src/documents/s3.ts';
import { containerNumber } from '../helpers/doc-content.ts';
import { fixtureSet, flatten, score } from '../helpers/doc-fixtures.ts';
import fc from '../helpers/fast-check.ts';

// The pure parts: numbers, places, classification, layout, schemas, and the text-PDF half of
// the quality fixture set (the OCR half is measured by bench/documents-quality.ts).

const words = (rows: Array<Array<[number, string]>>): Word[] =>
  rows.flatMap((row, i) =>
    row.map(([x, text]) => ({
      page: 1,
      x0: x,
      x1: x + text.length * 6,
      y0: i * 14,
      y1: i * 14 + 10,
      text,
      confidence: 1,
    })),
  );

describe('document extraction (pure)', () => {
  test('container numbers: check digits, OCR confusions repaired, spaced forms', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('MSK', 'TGH', 'CAI'),
        fc.integer({ min: 0, max: 999_999 }),
        (owner, serial) => {
          const n = containerNumber(owner, serial);
          assert.equal(repairContainerNumber(n), n);
          assert.deepEqual(
            containerNumbersIn(`Cntr ${n.slice(0, 4)} ${n.slice(4, 10)} ${n.slice(10)} sealed`),
            [n],
          );
          // OCR reads O for 0 and 1 for I: repaired.
          const garbled = n.slice(0, 4).replace('I', '1') + n.slice(4).replace(/0/g, 'O');
          assert.equal(repairContainerNumber(garbled), n);
        },
      ),
    );
    assert.equal(repairContainerNumber('MSKU1234560'), null, 'wrong check digit');
  });

  test('dates, weights, size/type', () => {
    assert.equal(parseDate('2026-03-14'), '2026-03-14');
    assert.equal(parseDate('14 MAR 2026'), '2026-03-14');
    assert.equal(parseDate('Mar 4, 2026'), '2026-03-04');
    assert.equal(parseDate('25/12/2026'), '2026-12-25');
    assert.equal(parseDate('not a date'), null);
    assert.equal(weightKg('21,738 KGS'), 21738);
    assert.equal(weightKg('1000 LBS'), 453.6);
    assert.equal(sizeType("1 x 40' HC"), '40HC');
    assert.equal(sizeType('45G1'), '45G1');
  });

  test('places resolve to UN/LOCODEs through the port list', () => {
    assert.equal(resolvePlace('ROTTERDAM, NETHERLANDS')?.locode, 'NLRTM');
    assert.equal(resolvePlace('Los Angeles, CA')?.locode, 'USLAX');
    assert.equal(resolvePlace('Hamburg (DEHAM)')?.locode, 'DEHAM');
    assert.equal(resolvePlace('Port of Felixstowe, United Kingdom')?.locode, 'GBFXT');
    assert.equal(resolvePlace('Atlantis, Nowhere')?.locode, null);
  });

  test('layout: columns on one line become segments; labels pair with values beside or below', () => {
    const lines = buildLines(
      words([
        [
          [0, 'BILL'],
          [30, 'OF'],
          [48, 'LADING'],
        ],
        [
          [0, 'Shipper'],
          [300, 'B/L'],
          [320, 'No.'],
        ],
        [
          [0, 'ACME'],
          [30, 'LTD'],
          [300, 'TEST123456'],
        ],
        [
          [0, 'SCAC:'],
          [36, 'TEST'],
        ],
      ]),
    );
    assert.equal(lines[1]!.segments.length, 2);
    const rep = represent(classify(lines).type, lines);
    assert.equal(rep.payload.bill_of_lading_number, 'TEST123456');
    assert.equal((rep.payload.shipper as { name: string }).name, 'ACME LTD');
    assert.deepEqual(rep.trackable, { scac: 'TEST', number: 'TEST123456', type: 'bill_of_lading' });
  });

  test('classification picks the title, and other for text of no shipping document', () => {
    const of = (text: string) =>
      classify(buildLines(words(text.split('\n').map((l) => [[0, l] as [number, string]]))));
    assert.equal(of('ARRIVAL NOTICE\nB/L No: X1').type, 'arrival_notice');
    assert.equal(of('PACKING LIST\nCartons 10').type, 'packing_list');
    const other = of('Dear customer\nthank you for your order');
    assert.equal(other.type, 'other');
    assert.ok(other.notes.length > 0);
  });

  test('file types from bytes; schemas by full version and bare type', () => {
    assert.equal(detectFileKind(Buffer.from('%PDF-1.7')), 'pdf');
    assert.equal(detectFileKind(Buffer.from([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
    assert.equal(detectFileKind(Buffer.from('II*\0')), 'tiff');
    assert.equal(detectFileKind(Buffer.from('hello')), null);
    const s = findSchema('packing_list')!;
    assert.equal(findSchema(s.full_version), s);
    assert.equal(findSchema('packing_list@1999-01-01'), undefined);
  });

  test('S3 requests are signed as AWS documents it (SigV4 GET example)', async () => {
    const client = s3Client({
      endpoint: null,
      bucket: null,
      region: 'us-east-1',
      accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    });
    const signed = await client.sign('https://examplebucket.s3.amazonaws.com/test.txt', {
      method: 'GET',
      headers: {
        range: 'bytes=0-9',
        'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      },
      // aws4fetch leaves range out of the signature unless told (our requests send none).
      aws: { datetime: '20130524T000000Z', allHeaders: true },
    });
    assert.match(
      signed.headers.get('authorization') ?? '',
      /Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41$/,
    );
  });

  test('text-PDF fixtures: classified right, payloads valid against their schema, field precision and recall at least 95%', async () => {
    // ajv is CommonJS: its class is the module's default export.
    const Ajv2020 = (Ajv2020Module as unknown as { default: typeof Ajv2020Module.default }).default;
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: unknown) => void)(ajv);
    let expected = 0;
    let extracted = 0;
    let correct = 0;
    for (const f of fixtureSet().filter((x) => !x.ocr)) {
      const read = await readFile(await f.render(), f.contentType, { ocr: false });
      const c = classify(read.lines);
      assert.equal(c.type, f.doc.kind, f.name);
      const { payload } = represent(c.type, read.lines);
      const validate = ajv.compile(schemaPayloadOf(c.type));
      assert.ok(validate(payload), `${f.name}: ${JSON.stringify(validate.errors)}`);
      assert.equal(validate({ ...payload, unexpected: 1 }), false, 'the schema is closed');
      const s = score(f.doc.expect, flatten(c.type, payload));
      expected += s.expected;
      extracted += s.extracted;
      correct += s.correct;
    }
    assert.ok(correct / extracted >= 0.95, `precision ${correct}/${extracted}`);
    assert.ok(correct / expected >= 0.95, `recall ${correct}/${expected}`);
  });
});
