import { rotateImage } from './image.ts';
import { stopOcr } from './ocr.ts';
import { readFile } from './read.ts';
import type { ReaderAnswer, ReaderRequest } from './reader-process.ts';
import { UnreadableFile } from './unreadable.ts';

// The document reader's own process (started by reader-process.ts with node:child_process fork):
// reads and rotates the files it is sent over IPC and answers each request by its id. It runs
// without `--liftoff-only`, so OCR (tesseract.js) and PDF reading get V8's optimising WebAssembly
// compiler, while the service's process, which holds PGlite, does without it. It ends when the
// channel closes: the service stopped it, or the service itself is gone.

const asBuffer = (b: Uint8Array) =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

async function answer(m: ReaderRequest): Promise<ReaderAnswer> {
  try {
    if (m.op === 'rotate')
      return { id: m.id, ok: true, value: await rotateImage(asBuffer(m.bytes), m.degrees) };
    return { id: m.id, ok: true, value: await readFile(asBuffer(m.bytes), m.contentType, { ocr: m.ocr }) };
  } catch (err) {
    return {
      id: m.id,
      ok: false,
      unreadable: err instanceof UnreadableFile,
      message: (err as Error).message,
    };
  }
}

process.on('message', (m: ReaderRequest) => {
  void answer(m).then((a) => {
    // The channel may be gone by now (the service stopped): the 'disconnect' below ends this process.
    if (process.connected) process.send?.(a, undefined, {}, () => {});
  });
});

process.on('disconnect', () => {
  void stopOcr()
    .catch(() => {})
    .finally(() => process.exit(0));
});
