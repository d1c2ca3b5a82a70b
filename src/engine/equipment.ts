// ISO 6346 size-type codes ("22GP", "45G1", "L5G1", legacy "4510") to our equipment attributes.
// Unknown characters give null for that attribute rather than a guess.

import type { NormalizedContainer } from './types.ts';

export interface EquipmentInfo {
  equipment_type: NormalizedContainer['equipment_type'];
  equipment_length: NormalizedContainer['equipment_length'];
  equipment_height: NormalizedContainer['equipment_height'];
}

const LENGTHS: Record<string, 10 | 20 | 40 | 45> = { '1': 10, '2': 20, '4': 40, L: 45 };

// Second size character: 8'6" and lower are "standard", 9'6" and taller "high_cube". 9' (4/D/M)
// is not a high cube either. Half-height codes (8, 9) have no value in our enum.
const STANDARD = new Set(['0', '2', '4', 'C', 'D', 'L', 'M']);
const HIGH_CUBE = new Set(['5', '6', 'E', 'F', 'N', 'P']);

type EquipmentType = NonNullable<NormalizedContainer['equipment_type']>;

// Type group letter (ISO 6346:1995): G/V general and ventilated, R/H thermal, U open top,
// P platforms and flat racks, T tanks, B dry bulk. S (named cargo) and A (air/surface): unknown.
const TYPE_BY_LETTER: Record<string, EquipmentType> = {
  G: 'dry',
  V: 'dry',
  R: 'reefer',
  H: 'reefer',
  U: 'open_top',
  P: 'flat_rack',
  T: 'tank',
  B: 'bulk',
};

// Legacy (ISO 6346:1984) numeric type codes, by first digit.
const TYPE_BY_LEGACY_DIGIT: Record<string, EquipmentType> = {
  '0': 'dry',
  '1': 'dry',
  '2': 'reefer',
  '3': 'reefer',
  '4': 'reefer',
  '5': 'open_top',
  '6': 'flat_rack',
  '7': 'tank',
  '8': 'bulk',
};

export function decodeIsoEquipmentCode(code: string | null): EquipmentInfo {
  const c = (code ?? '').toUpperCase();
  if (c.length !== 4) return { equipment_type: null, equipment_length: null, equipment_height: null };
  const h = c[1]!;
  const t = c[2]!;
  return {
    equipment_length: LENGTHS[c[0]!] ?? null,
    equipment_height: STANDARD.has(h) ? 'standard' : HIGH_CUBE.has(h) ? 'high_cube' : null,
    equipment_type: TYPE_BY_LETTER[t] ?? TYPE_BY_LEGACY_DIGIT[t] ?? null,
  };
}
