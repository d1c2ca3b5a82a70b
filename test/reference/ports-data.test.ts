import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { allPortLocodes, csvFields, portById, portByLocode } from '../../src/reference/data.ts';
import { uuidV5 } from '../../src/util/uuid.ts';

// Ports are parsed on demand from the shipped file; this checks every one against a full CSV
// parser, so the lazy reader can never drift from the data.

test('every port read on demand equals the full CSV parse of the file', () => {
  const rows = parse(readFileSync(new URL('../../src/reference/data/ports.csv', import.meta.url)), {
    columns: true,
    skip_empty_lines: true,
    bom: true,
  }) as Record<string, string>[];
  assert.equal([...allPortLocodes()].length, rows.length);
  for (const r of rows) {
    const p = portByLocode(r.locode!);
    assert.ok(p, String(r.locode));
    assert.deepEqual(
      [p.locode, p.name, p.country_code, p.state_abbr ?? '', p.time_zone ?? ''],
      [r.locode, r.name, r.country_code, r.subdivision, r.time_zone],
    );
    assert.equal(p.latitude, r.latitude ? Number(r.latitude) : null);
    assert.equal(p.id, uuidV5(`port:${r.locode}`));
  }
  const rtm = portByLocode('nlrtm')!;
  assert.equal(portById(rtm.id)?.locode, 'NLRTM');
  assert.equal(portByLocode('ZZZZZ'), undefined);
});

test('CSV fields: quotes, doubled quotes, commas and empty fields', () => {
  assert.deepEqual(csvFields('a,"b, c","say ""hi""",,e'), ['a', 'b, c', 'say "hi"', '', 'e']);
  assert.deepEqual(csvFields(''), ['']);
  assert.deepEqual(csvFields('x,'), ['x', '']);
});
