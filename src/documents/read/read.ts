import { buildLines, type Line, type Word } from '../extract/layout.ts';
import { forOcr } from './image.ts';
import { ocrImage } from './ocr.ts';
import { readPdf, UnreadableFile } from './pdf.ts';

// A stored file to lines of text: the PDF text layer where there is one, OCR for image files and
// image-only pages. Upside-down or sideways scans are tried in the other orientations when the
// first reading is poor, keeping the best.

export interface ReadResult {
  lines: Line[];
  source: 'pdf_text' | 'ocr' | 'pdf_text+ocr' | 'none';
  confidence: number;
}

export interface ReadOptions {
  ocr: boolean;
}

const POOR = 0.6;
const PROBE_WIDTH = 1000;

const score = (r: { confidence: number; words: unknown[] }) => r.confidence * Math.min(1, r.words.length / 8);

/**
 * OCR in the best orientation. A good first reading is kept; a poor one (a page scanned upside
 * down or sideways) is followed by quick probes of the other orientations on a small copy, and
 * the page is read again in full only in the orientation that probed best.
 */
async function ocrBest(png: (degrees: number, probeWidth?: number) => Promise<Buffer>, page: number) {
  const first = await ocrImage(await png(0), page);
  if (first.confidence >= POOR && first.words.length >= 8) return first;
  let bestDegrees = 0;
  let bestScore = score(await ocrImage(await png(0, PROBE_WIDTH), page));
  for (const degrees of [180, 90, 270]) {
    const s = score(await ocrImage(await png(degrees, PROBE_WIDTH), page));
    if (s > bestScore) {
      bestScore = s;
      bestDegrees = degrees;
    }
  }
  if (bestDegrees === 0) return first;
  const turned = await ocrImage(await png(bestDegrees), page);
  return score(turned) > score(first) ? turned : first;
}

export async function readFile(bytes: Buffer, contentType: string, o: ReadOptions): Promise<ReadResult> {
  if (contentType === 'application/pdf') {
    const pdf = await readPdf(bytes);
    const words: Word[] = [...pdf.words];
    let ocrConf: number[] = [];
    if (o.ocr) {
      for (const ip of pdf.imagePages) {
        const r = await ocrBest((d, w) => forOcr(ip.image, d, w), ip.page);
        words.push(...r.words);
        ocrConf.push(r.confidence);
      }
    } else ocrConf = [];
    const source =
      pdf.imagePages.length === 0 ? 'pdf_text' : pdf.words.length ? 'pdf_text+ocr' : o.ocr ? 'ocr' : 'none';
    const confidence = ocrConf.length ? ocrConf.reduce((a, b) => a + b, 0) / ocrConf.length : 1;
    return { lines: buildLines(words), source, confidence };
  }
  if (!contentType.startsWith('image/')) throw new UnreadableFile(`unsupported content type ${contentType}`);
  if (!o.ocr) return { lines: [], source: 'none', confidence: 0 };
  await forOcr(bytes); // fails early, and cleanly, on a corrupt image
  const r = await ocrBest((d, w) => forOcr(bytes, d, w), 1);
  return { lines: buildLines(r.words), source: 'ocr', confidence: r.confidence };
}
