import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createWorker, OEM, PSM, type Worker } from 'tesseract.js';
import type { Word } from '../extract/layout.ts';

// OCR with tesseract.js, entirely from disk: the core (WebAssembly) is required from
// node_modules by tesseract.js's Node worker, and the English model is read from the
// @tesseract.js-data/eng package (langPath is a local directory, so nothing is fetched;
// cacheMethod none, so nothing is written to the working directory). One worker per process,
// made on first use: OCR is CPU-bound, and jobs queue on it.

const require = createRequire(import.meta.url);

/** The directory holding eng.traineddata.gz (the LSTM "best_int" model). */
export function engLangPath(): string {
  return join(dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int');
}

let worker: Promise<Worker> | null = null;

function getWorker(): Promise<Worker> {
  if (!worker) {
    worker = createWorker('eng', OEM.LSTM_ONLY, {
      langPath: engLangPath(),
      gzip: true,
      cacheMethod: 'none',
    }).then(async (w) => {
      // A fixed resolution and no debug file: tesseract otherwise prints estimates to stdout.
      await w.setParameters({
        tessedit_pageseg_mode: PSM.SPARSE_TEXT,
        preserve_interword_spaces: '1',
        user_defined_dpi: '200',
        debug_file: '/dev/null',
      });
      return w;
    });
    worker.catch(() => {
      worker = null;
    });
  }
  return worker;
}

export interface OcrResult {
  words: Word[];
  /** Mean word confidence, 0..1. */
  confidence: number;
}

interface OcrWord {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

/** Words of a PNG image (page number given), with boxes in pixels. */
export async function ocrImage(png: Buffer, page: number): Promise<OcrResult> {
  const w = await getWorker();
  const { data } = await w.recognize(png, {}, { blocks: true, text: false });
  const words: Word[] = [];
  const ocrWords: OcrWord[] = [];
  const slopes: number[] = [];
  for (const b of data.blocks ?? []) {
    for (const p of b.paragraphs) {
      for (const l of p.lines) {
        const dx = l.baseline.x1 - l.baseline.x0;
        if (dx > 150) slopes.push((l.baseline.y1 - l.baseline.y0) / dx);
        for (const wd of l.words) ocrWords.push(wd);
      }
    }
  }
  // A crooked scan: boxes come in page coordinates, so a row drifts down (or up) across the page
  // and its columns would no longer share a line. Undo the median baseline slope first.
  const slope = slopes.length ? slopes.sort((a, b) => a - b)[Math.floor(slopes.length / 2)]! : 0;
  for (const wd of ocrWords) {
    if (!wd.text.trim()) continue;
    const shift = slope * ((wd.bbox.x0 + wd.bbox.x1) / 2);
    words.push({
      page,
      x0: wd.bbox.x0,
      x1: wd.bbox.x1,
      y0: wd.bbox.y0 - shift,
      y1: wd.bbox.y1 - shift,
      text: wd.text,
      confidence: Math.max(0, Math.min(1, wd.confidence / 100)),
    });
  }
  const confidence = words.length ? words.reduce((a, b) => a + b.confidence, 0) / words.length : 0;
  return { words, confidence };
}

/** Ends this process's OCR worker (shutdown, tests). */
export async function stopOcr(): Promise<void> {
  const w = worker;
  worker = null;
  if (w) await (await w).terminate();
}
