import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeIsoEquipmentCode } from '../../src/engine/equipment.ts';
import { localToUtc, parseTimestamp } from '../../src/engine/time.ts';

describe('parseTimestamp', () => {
  const utc = (v: unknown, zone: string | null = null) => parseTimestamp(v, zone)?.iso ?? null;

  it('honours offsets in their usual spellings', () => {
    assert.equal(utc('2019-11-12T07:41:00+08:30'), '2019-11-11T23:11:00.000Z');
    assert.equal(utc('2024-03-01T09:00:00+0800'), '2024-03-01T01:00:00.000Z');
    assert.equal(utc('2024-03-01T09:00:00-05'), '2024-03-01T14:00:00.000Z');
    assert.equal(utc('2024-03-01T09:00:00.123456Z'), '2024-03-01T09:00:00.123Z');
    assert.equal(utc('2024-03-01 09:00Z'), '2024-03-01T09:00:00.000Z');
    assert.equal(parseTimestamp('2024-03-01T09:00:00+01:00', 'Asia/Tokyo')?.inferredZone, false);
  });

  it('reads values without an offset in the location zone, across DST, and flags them', () => {
    const winter = parseTimestamp('2024-01-15T12:00:00', 'Europe/Amsterdam');
    assert.deepEqual(winter && { iso: winter.iso, inferred: winter.inferredZone }, {
      iso: '2024-01-15T11:00:00.000Z',
      inferred: true,
    });
    assert.equal(utc('2024-07-15T12:00:00', 'Europe/Amsterdam'), '2024-07-15T10:00:00.000Z');
    assert.equal(utc('2024-07-15T12:00:00', 'America/Chicago'), '2024-07-15T17:00:00.000Z');
    assert.equal(utc('2024-07-15', 'Asia/Kolkata'), '2024-07-14T18:30:00.000Z');
    // Fall-back overlap (01:30 happens twice in New York): the first occurrence, EDT.
    assert.equal(utc('2024-11-03T01:30:00', 'America/New_York'), '2024-11-03T05:30:00.000Z');
    // Unknown zone: UTC, still flagged.
    const unknown = parseTimestamp('2024-07-15T12:00:00', 'Not/AZone');
    assert.equal(unknown?.iso, '2024-07-15T12:00:00.000Z');
    assert.equal(unknown?.inferredZone, true);
  });

  it('can read Z as local time for carriers that mislabel it', () => {
    const t = parseTimestamp('2024-07-15T12:00:00Z', 'Asia/Singapore', { zuluIsLocal: true });
    assert.equal(t?.iso, '2024-07-15T04:00:00.000Z');
    assert.equal(t?.inferredZone, true);
  });

  it('rejects garbage without throwing', () => {
    for (const v of [
      null,
      undefined,
      42,
      {},
      '',
      'yesterday',
      '2024-13-01',
      '2024-02-30T00:00:00Z',
      '2024-01-01T25:00',
      '0001-01-01T00:00:00Z',
      '2024-01-01T00:00:00+25:00',
      'x'.repeat(10_000),
    ]) {
      assert.equal(parseTimestamp(v, 'Europe/Paris'), null, String(v).slice(0, 30));
    }
  });

  it('localToUtc round-trips ordinary times', () => {
    const wall = Date.UTC(2024, 5, 1, 8, 0, 0);
    assert.equal(new Date(localToUtc(wall, 'Asia/Tokyo')).toISOString(), '2024-05-31T23:00:00.000Z');
  });
});

describe('decodeIsoEquipmentCode', () => {
  const cases: [string, unknown][] = [
    ['22GP', { equipment_type: 'dry', equipment_length: 20, equipment_height: 'standard' }],
    ['45G1', { equipment_type: 'dry', equipment_length: 40, equipment_height: 'high_cube' }],
    ['42R1', { equipment_type: 'reefer', equipment_length: 40, equipment_height: 'standard' }],
    ['45R1', { equipment_type: 'reefer', equipment_length: 40, equipment_height: 'high_cube' }],
    ['22UT', { equipment_type: 'open_top', equipment_length: 20, equipment_height: 'standard' }],
    ['22PC', { equipment_type: 'flat_rack', equipment_length: 20, equipment_height: 'standard' }],
    ['45PC', { equipment_type: 'flat_rack', equipment_length: 40, equipment_height: 'high_cube' }],
    ['22TN', { equipment_type: 'tank', equipment_length: 20, equipment_height: 'standard' }],
    ['L5G1', { equipment_type: 'dry', equipment_length: 45, equipment_height: 'high_cube' }],
    ['22BU', { equipment_type: 'bulk', equipment_length: 20, equipment_height: 'standard' }],
    ['4510', { equipment_type: 'dry', equipment_length: 40, equipment_height: 'high_cube' }],
    ['4532', { equipment_type: 'reefer', equipment_length: 40, equipment_height: 'high_cube' }],
    ['12GP', { equipment_type: 'dry', equipment_length: 10, equipment_height: 'standard' }],
    ['9ZZZ', { equipment_type: null, equipment_length: null, equipment_height: null }],
    ['', { equipment_type: null, equipment_length: null, equipment_height: null }],
  ];
  for (const [code, expected] of cases) {
    it(code || '(empty)', () => assert.deepEqual(decodeIsoEquipmentCode(code), expected));
  }
  it('null', () => assert.equal(decodeIsoEquipmentCode(null).equipment_type, null));
});
