import { portByLocode, terminalBySmdg, zoneOfLocode } from '../src/reference/data.ts';

// Real ports and SMDG terminals from the shipped reference data, so simulated records resolve to
// real locations; depots and rail ramps have no SMDG code, so they carry a name only.

export type FacilityType = 'POTE' | 'DEPO' | 'RAMP' | 'INTE' | 'CLOC';

export interface Place {
  locode: string;
  /** SMDG terminal code without the UN/LOCODE, or null for depots and ramps. */
  facilityCode: string | null;
  facilityTypeCode: FacilityType;
  name: string;
  timeZone: string;
}

export interface Vessel {
  imo: string;
  name: string;
  flag: string;
  callSign: string;
}

const cache = new Map<string, Place>();

/** A port terminal by UN/LOCODE and SMDG code; throws when the reference data lacks it. */
export function terminal(locode: string, smdg: string): Place {
  const key = `${locode}:${smdg}`;
  let place = cache.get(key);
  if (!place) {
    const t = terminalBySmdg(locode, smdg);
    if (!t) throw new Error(`simulator: no SMDG terminal ${smdg} at ${locode} in the reference data`);
    place = { locode, facilityCode: smdg, facilityTypeCode: 'POTE', name: t.name, timeZone: zoneOf(locode) };
    cache.set(key, place);
  }
  return place;
}

/** An off-terminal facility (empty depot, rail ramp) in a port city. */
export function facility(locode: string, type: FacilityType, name: string): Place {
  const key = `${locode}:${type}:${name}`;
  let place = cache.get(key);
  if (!place) {
    if (!portByLocode(locode)) throw new Error(`simulator: unknown UN/LOCODE ${locode}`);
    place = { locode, facilityCode: null, facilityTypeCode: type, name, timeZone: zoneOf(locode) };
    cache.set(key, place);
  }
  return place;
}

function zoneOf(locode: string): string {
  return zoneOfLocode(locode) ?? 'UTC';
}

/** IMO numbers carry a check digit: the weighted sum of the first six digits (7..2), mod 10. */
export function imoNumber(first6: number): string {
  const digits = String(first6).padStart(6, '0');
  let sum = 0;
  for (let i = 0; i < 6; i++) sum += Number(digits[i]) * (7 - i);
  return digits + (sum % 10);
}

export function isValidImo(imo: string): boolean {
  return /^\d{7}$/.test(imo) && imoNumber(Number(imo.slice(0, 6))) === imo;
}

// Fictional ships (names say so) with well-formed IMO numbers.
const vessel = (first6: number, name: string, flag: string, callSign: string): Vessel => ({
  imo: imoNumber(first6),
  name,
  flag,
  callSign,
});

export const MAINLINE_VESSELS: readonly Vessel[] = [
  vessel(978_101, 'TEST AURORA', 'DK', 'OXTA2'),
  vessel(978_202, 'TEST BOREALIS', 'SG', '9VTB7'),
  vessel(978_303, 'TEST CASSIOPEIA', 'LR', 'D5TC3'),
  vessel(978_404, 'TEST DRACO', 'PA', '3ETD9'),
  vessel(978_505, 'TEST ERIDANUS', 'MT', '9HTE4'),
  vessel(978_606, 'TEST FORNAX', 'HK', 'VRTF6'),
];

export const BARGES: readonly Vessel[] = [
  vessel(934_111, 'TEST RHINE RUNNER', 'NL', 'PDTR1'),
  vessel(934_222, 'TEST MAAS SHUTTLE', 'NL', 'PDTM2'),
];
