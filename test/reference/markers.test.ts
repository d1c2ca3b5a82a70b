import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expandMarkers, MARKER_START } from '../../src/reference/markers.ts';

// expandMarkers finds markers by their control character; this checks it against the definition
// (a regular expression over the whole text) on the texts a document holds and on malformed ones.

const M = MARKER_START;
const DEFINITION = new RegExp(`"${M}(pn|pz|pi|pd|ls|ln|lk):([A-Za-z0-9]*)"`, 'g');
const byDefinition = (text: string) =>
  text.replace(DEFINITION, (_m, kind: string, code: string) => expandMarkers(`"${M}${kind}:${code}"`));

test('markers are replaced by their reference values; anything else stays as it is', () => {
  const port = expandMarkers(`"${M}pd:USLAX"`);
  assert.match(port, /^\{"id":"[0-9a-f-]{36}","type":"port"\}$/);
  assert.equal(expandMarkers(`"${M}pn:USLAX"`), '"Los Angeles"');
  assert.equal(expandMarkers(`"${M}pn:ZZZZZ"`), 'null');
  assert.equal(expandMarkers(`"${M}ls:MAEU"`), '"MAEU"');
  assert.equal(expandMarkers(`"${M}ln:NOPE"`), '"NOPE"');
  const cases = [
    '{"a":1}',
    `{"a":"${M}pz:USLAX","b":"${M}pz:NLRTM"}`,
    `["${M}pi:USLAX","${M}pi:USLAX",null]`,
    `"${M}xx:USLAX"`, // unknown kind
    `"${M}pn:US-LAX"`, // a character no code holds
    `"${M}pn:USLAX`, // no closing quote
    `${M}pn:USLAX"`, // no opening quote
    `"${M}"`,
    `${M}`,
    `""${M}pn"`,
    `"${M}pn:"`, // empty code
    `{"x":"${M}lk:MAEU"}${M}{"y":"${M}pd:DEHAM"}`,
  ];
  for (const text of cases) assert.equal(expandMarkers(text), byDefinition(text), JSON.stringify(text));
});
