// Run by ocr.test.ts in a process with no network (a network namespace of its own when the
// machine allows it, and every socket connect refused either way): OCR must still work, reading
// its core and English model from disk only, and write nothing to the working directory.
import { connect } from 'node:net';
import { represent } from '../../src/documents/extract/represent.ts';
import { stopOcr } from '../../src/documents/read/ocr.ts';
import { readFile } from '../../src/documents/read/read.ts';
import { transportDoc } from '../helpers/doc-content.ts';
import { layoutOps, renderScan } from '../helpers/doc-render.ts';

const doc = transportDoc(31, 'bill_of_lading');
const png = await renderScan(layoutOps(doc, 'inline'), {});
const read = await readFile(png, 'image/png', { ocr: true });
const rep = represent('bill_of_lading', read.lines);
// Proof that this process really has no way out.
const probe = await new Promise<string>((resolve) => {
  let s: ReturnType<typeof connect>;
  try {
    s = connect({ host: '1.1.1.1', port: 80, timeout: 2000 });
  } catch (e) {
    return resolve(`refused: ${(e as NodeJS.ErrnoException).code}`);
  }
  s.on('connect', () => resolve('connected'));
  s.on('error', (e) => resolve(`refused: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
  s.on('timeout', () => resolve('timeout'));
});
await stopOcr();
process.stdout.write(
  `${JSON.stringify({ expected: doc.expect.bill_of_lading_number, read: rep.payload.bill_of_lading_number, probe })}\n`,
);
