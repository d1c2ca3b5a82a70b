// A JSON document assembled from pieces of text (src/shipments/sql-documents/), encoded once.

/**
 * The document made of `pieces`, encoded once into one Buffer. For answers of hundreds of KB (a
 * page of shipments with their containers): joining the pieces, flattening the joined string and
 * encoding it to UTF-8 on the way out made three copies of the answer; with 50 such answers in
 * flight that was ~25 MB more peak RSS (docs/benchmarks.md).
 */
export function jsonPieces(pieces: readonly string[]): Buffer {
  let bytes = 0;
  for (const p of pieces) bytes += Buffer.byteLength(p);
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const p of pieces) at += out.write(p, at);
  return out;
}
