import { classify } from '../src/documents/extract/classify.ts';
import { represent } from '../src/documents/extract/represent.ts';
import { stopOcr } from '../src/documents/read/ocr.ts';
import { readFile } from '../src/documents/read/read.ts';
import { fixtureSet, flatten, type Score, score } from '../test/helpers/doc-fixtures.ts';

// Extraction quality on the generated fixture set (test/helpers/doc-fixtures.ts): field-level
// precision and recall per fixture, per medium and overall, as the Markdown of docs/documents.md.
// `node bench/documents-quality.ts [--only-text]` (the scans take a few seconds each).

const onlyText = process.argv.includes('--only-text');
const rows: string[] = [];
const groups = new Map<string, Score>();
const add = (g: string, s: Score) => {
  const t = groups.get(g) ?? { expected: 0, extracted: 0, correct: 0 };
  t.expected += s.expected;
  t.extracted += s.extracted;
  t.correct += s.correct;
  groups.set(g, t);
};
const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : '–');
const misses: string[] = [];

for (const f of fixtureSet()) {
  if (onlyText && f.ocr) continue;
  const t0 = performance.now();
  const bytes = await f.render();
  const read = await readFile(bytes, f.contentType, { ocr: true });
  const c = classify(read.lines);
  const rep = represent(c.type, read.lines);
  const s = score(f.doc.expect, flatten(c.type, rep.payload));
  const ms = Math.round(performance.now() - t0);
  add(f.ocr ? 'OCR (images, scanned PDFs)' : 'text PDFs', s);
  add('all', s);
  rows.push(
    `| ${f.name} | ${f.doc.kind} | ${c.type === f.doc.kind ? 'yes' : `no (${c.type})`} | ${s.expected} | ${pct(s.correct, s.extracted)} | ${pct(s.correct, s.expected)} | ${ms} |`,
  );
  for (const w of s.wrong) misses.push(`${f.name}: ${w}`);
  process.stderr.write(`${f.name}: ${s.correct}/${s.expected} in ${ms} ms\n`);
}
await stopOcr();

const out = [
  '| fixture | type | classified | fields | precision | recall | ms |',
  '|---|---|---|---|---|---|---|',
  ...rows,
  '',
  '| set | fields | precision | recall |',
  '|---|---|---|---|',
  ...[...groups].map(
    ([g, s]) => `| ${g} | ${s.expected} | ${pct(s.correct, s.extracted)} | ${pct(s.correct, s.expected)} |`,
  ),
  '',
  'Misses:',
  '',
  ...misses.map((m) => `- ${m}`),
];
process.stdout.write(`${out.join('\n')}\n`);
