// Issue 31 (8): a packing list's totals, read from real text PDFs: from the labelled totals or the
// TOTAL row, by the column the table's header names (not the row's last number, often the volume),
// checked against the sum of the lines; where they disagree the stated total is kept, less sure.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { classify } from '../../src/documents/extract/classify.ts';
import { represent } from '../../src/documents/extract/represent.ts';
import { readFile } from '../../src/documents/read/read.ts';
import { containerNumber } from '../helpers/doc-content.ts';
import { type Op, renderPdf } from '../helpers/doc-render.ts';

const COLUMNS = [40, 120, 250, 310, 400, 490];
const HEADER = [
  'Container No.',
  'Description',
  'Cartons',
  'Net Weight (KGS)',
  'Gross Weight (KGS)',
  'Volume (CBM)',
];
const LINES = [
  [containerNumber('MSK', 101), 'Cotton T-shirts', '420 CTNS', '6,000.00', '6,150.00', '20.8'],
  [containerNumber('MSK', 102), 'Cotton T-shirts', '420 CTNS', '6,050.00', '6,150.00', '20.8'],
  [containerNumber('TGH', 103), 'Denim jeans', '420 CTNS', '6,050.00', '6,150.00', '20.8'],
];
const TOTAL_ROW = ['TOTAL', '', '1,260', '18,100.00', '18,450.00', '62.4'];
const LABELLED = (gross: string) => [
  'Total Packages: 1,260 CARTONS',
  'Total Net Weight: 18,100.00 KGS',
  `Total Gross Weight: ${gross} KGS`,
  'Total Volume: 62.40 CBM',
];

/** A packing list as a text PDF: a table (header, rows, optional TOTAL row), then free lines. */
async function packingList(rows: string[][], below: string[] = []) {
  const ops: Op[] = [
    { x: 40, y: 50, size: 16, text: 'PACKING LIST', bold: true },
    { x: 40, y: 80, size: 9, text: 'Packing List No.: PL-2026-0117' },
    { x: 40, y: 95, size: 9, text: 'Date: 2026-11-02' },
  ];
  let y = 130;
  for (const row of [HEADER, ...rows]) {
    row.forEach((text, i) => {
      if (text) ops.push({ x: COLUMNS[i]!, y, size: 8, text, bold: row === HEADER });
    });
    y += 14;
  }
  for (const text of below) {
    y += 14;
    ops.push({ x: 40, y, size: 9, text });
  }
  const read = await readFile(await renderPdf(ops), 'application/pdf', { ocr: false });
  const c = classify(read.lines);
  assert.equal(c.type, 'packing_list');
  const r = represent(c.type, read.lines);
  return { payload: r.payload as any, confidence: r.field_confidence };
}

describe('packing-list totals', () => {
  test('lines, a TOTAL row and labelled totals below (the issue): by column, checked, sure', async () => {
    const { payload, confidence } = await packingList([...LINES, TOTAL_ROW], LABELLED('18,450.00'));
    assert.equal(payload.total_packages, 1260);
    assert.equal(payload.total_gross_weight_kg, 18450);
    assert.deepEqual(
      payload.lines.map((l: any) => [l.packages, l.gross_weight_kg]),
      [
        [420, 6150],
        [420, 6150],
        [420, 6150],
      ],
    );
    assert.equal(confidence.total_packages, 0.95);
    assert.equal(confidence.total_gross_weight_kg, 0.95);
  });

  test('only a TOTAL row: its numbers by column', async () => {
    const { payload, confidence } = await packingList([TOTAL_ROW]);
    assert.equal(payload.total_packages, 1260);
    assert.equal(payload.total_gross_weight_kg, 18450);
    assert.deepEqual(payload.lines, []);
    assert.equal(confidence.total_gross_weight_kg, 0.8);
  });

  test('lines only: the sum of the lines', async () => {
    const { payload, confidence } = await packingList(LINES);
    assert.equal(payload.total_packages, 1260);
    assert.equal(payload.total_gross_weight_kg, 18450);
    assert.equal(confidence.total_gross_weight_kg, 0.7);
  });

  test('labelled total and the lines disagree: the labelled total, with a lower confidence', async () => {
    const { payload, confidence } = await packingList(LINES, LABELLED('19,000.00'));
    assert.equal(payload.total_gross_weight_kg, 19000);
    assert.equal(confidence.total_gross_weight_kg, 0.5);
    // The packages agree: they stay sure.
    assert.equal(payload.total_packages, 1260);
    assert.equal(confidence.total_packages, 0.95);
  });
});
