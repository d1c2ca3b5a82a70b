// A JSON document assembled from pieces of text (src/shipments/sql-bodies/), encoded once.

/**
 * Where a document is written before it is copied out at its exact size. Measuring each piece's
 * UTF-8 length first (a scan of every character, then the encoding's own) cost more than the
 * copy: 17-18 µs against 10 µs for a page of events (34 KB in 71 pieces). Kept between calls (the
 * function is synchronous) and grown up to SCRATCH_MAX; larger documents take the two passes.
 */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);
const SCRATCH_MAX = 4 * 1024 * 1024;

/**
 * The document made of `pieces`, encoded once into one Buffer of its exact size. For answers of
 * hundreds of KB (a page of shipments with their containers): joining the pieces, flattening the
 * joined string and encoding it to UTF-8 on the way out made three copies of the answer; with 50
 * such answers in flight that was ~25 MB more peak RSS (docs/benchmarks.md).
 */
export function jsonPieces(pieces: readonly string[]): Buffer {
  let chars = 0;
  for (const p of pieces) chars += p.length;
  // A UTF-16 code unit is at most three bytes of UTF-8 (a surrogate pair, two units, is four).
  const bound = chars * 3;
  if (bound > SCRATCH_MAX) return measured(pieces);
  if (bound > scratch.length)
    scratch = Buffer.allocUnsafeSlow(Math.min(SCRATCH_MAX, Math.max(bound, scratch.length * 2)));
  let at = 0;
  for (const p of pieces) at += scratch.write(p, at);
  const out = Buffer.allocUnsafe(at);
  scratch.copy(out, 0, 0, at);
  return out;
}

/** The two passes: each piece's length, then each piece written. */
function measured(pieces: readonly string[]): Buffer {
  let bytes = 0;
  for (const p of pieces) bytes += Buffer.byteLength(p);
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const p of pieces) at += out.write(p, at);
  return out;
}
