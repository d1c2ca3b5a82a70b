import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { jsonPieces } from '../../src/util/json-pieces.ts';

// jsonPieces writes into a scratch buffer kept between calls and copies the document out at its
// exact size: any text (astral characters, lone surrogates, large documents that take the two
// passes) comes out as Buffer.from of the joined pieces would encode it, and no call sees the last.

test('jsonPieces encodes any pieces as Buffer.from of their join', () => {
  fc.assert(
    fc.property(fc.array(fc.string({ unit: 'binary' }), { maxLength: 40 }), (pieces) => {
      assert.deepEqual(jsonPieces(pieces), Buffer.from(pieces.join('')));
    }),
    { numRuns: 500 },
  );
});

test('jsonPieces: a short document after a long one, and one past the scratch limit', () => {
  const long = ['{"data":"', 'é'.repeat(300_000), '"}'];
  assert.deepEqual(jsonPieces(long), Buffer.from(long.join('')));
  assert.deepEqual(jsonPieces(['{}']), Buffer.from('{}'));
  const huge = ['[', 'x'.repeat(2_000_000), ']'];
  const out = jsonPieces(huge);
  assert.equal(out.length, 2_000_002);
  assert.deepEqual(out, Buffer.from(huge.join('')));
});
