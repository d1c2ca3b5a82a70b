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

async function ocrBest(png: (degrees: number) => Promise<Buffer>, page: number) {
  let best = await ocrImage(await png(0), page);
  if (best.confidence >= POOR && best.words.length >= 8) return best;
  for (const degrees of [180, 90, 270]) {
    const r = await ocrImage(await png(degrees), page);
    if (r.confidence * Math.min(1, r.words.length / 8) > best.confidence * Math.min(1, best.words.length / 8))
      best = r;
    if (best.confidence >= 0.75 && best.words.length >= 8) break;
  }
  return best;
}

export async function readFile(bytes: Buffer, contentType: string, o: ReadOptions): Promise<ReadResult> {
  if (contentType === 'application/pdf') {
    const pdf = await readPdf(bytes);
    const words: Word[] = [...pdf.words];
    let ocrConf: number[] = [];
    if (o.ocr) {
      for (const ip of pdf.imagePages) {
        const r = await ocrBest((d) => forOcr(ip.image, d), ip.page);
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
  const r = await ocrBest((d) => forOcr(bytes, d), 1);
  return { lines: buildLines(r.words), source: 'ocr', confidence: r.confidence };
}
