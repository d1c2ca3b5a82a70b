import { extractImages, getDocumentProxy } from 'unpdf';
import type { Word } from '../extract/layout.ts';

// The PDF text layer, as positioned words, and the pages that have none (scans), whose largest
// embedded image is handed to OCR.

import { UnreadableFile } from './unreadable.ts';

export { UnreadableFile };

export interface PdfRead {
  words: Word[];
  /** Pages without a text layer, with the image to OCR (raw pixels). */
  imagePages: Array<{
    page: number;
    image: { data: Uint8ClampedArray; width: number; height: number; channels: 1 | 3 | 4 };
  }>;
  pages: number;
}

interface TextItem {
  str: string;
  transform: number[];
  width: number;
  height: number;
}

// Fewer characters than this on a page: treat it as a scan.
const MIN_TEXT_CHARS = 16;

export async function readPdf(bytes: Uint8Array): Promise<PdfRead> {
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of the buffer it is given: hand it a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 });
  } catch (err) {
    throw new UnreadableFile(`not a readable PDF: ${(err as Error).message}`);
  }
  try {
    const words: Word[] = [];
    const imagePages: PdfRead['imagePages'] = [];
    for (let p = 1; p <= pdf.numPages; p++) {
      const page = await pdf.getPage(p);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      let chars = 0;
      for (const raw of content.items as TextItem[]) {
        if (typeof raw.str !== 'string' || !raw.str.trim()) continue;
        chars += raw.str.trim().length;
        const [x, y] = viewport.convertToViewportPoint(raw.transform[4]!, raw.transform[5]!) as [
          number,
          number,
        ];
        const h = Math.abs(raw.height || raw.transform[3] || 10);
        // One item may hold several words separated by runs of spaces (columns): split them.
        const parts = raw.str.split(/(\s{2,})/);
        const perChar = raw.width / Math.max(1, raw.str.length);
        let offset = 0;
        for (const part of parts) {
          if (part.trim()) {
            words.push({
              page: p,
              x0: x + offset * perChar,
              x1: x + (offset + part.length) * perChar,
              y0: y - h,
              y1: y,
              text: part,
              confidence: 1,
            });
          }
          offset += part.length;
        }
      }
      if (chars < MIN_TEXT_CHARS) {
        const images = await extractImages(pdf, p).catch(() => []);
        const biggest = images.sort((a, b) => b.width * b.height - a.width * a.height)[0];
        if (biggest) imagePages.push({ page: p, image: biggest as PdfRead['imagePages'][number]['image'] });
      }
      page.cleanup();
    }
    return { words, imagePages, pages: pdf.numPages };
  } catch (err) {
    if (err instanceof UnreadableFile) throw err;
    throw new UnreadableFile(`not a readable PDF: ${(err as Error).message}`);
  } finally {
    await pdf.cleanup().catch(() => {});
  }
}
