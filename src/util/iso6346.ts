// ISO 6346 container numbers: 3-letter owner code, category letter (U, J, Z or R), 6-digit
// serial and a check digit computed from the first ten characters.

const LETTER_VALUES: Record<string, number> = {};
{
  // Letters take the values 10..38, skipping multiples of 11.
  let v = 10;
  for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
    if (v % 11 === 0) v++;
    LETTER_VALUES[ch] = v++;
  }
}

const SHAPE = /^[A-Z]{3}[UJZR]\d{7}$/;

/** Check digit for the first 10 characters, or null when they are not well formed. */
export function checkDigit(first10: string): number | null {
  if (!/^[A-Z]{3}[UJZR]\d{6}$/.test(first10)) return null;
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const ch = first10[i]!;
    const value = i < 4 ? LETTER_VALUES[ch]! : Number(ch);
    sum += value * 2 ** i;
  }
  return (sum % 11) % 10;
}

export type ContainerNumberCheck =
  | { ok: true }
  | { ok: false; reason: 'format' | 'check_digit'; expected?: number };

export function checkContainerNumber(number: string): ContainerNumberCheck {
  if (!SHAPE.test(number)) return { ok: false, reason: 'format' };
  const expected = checkDigit(number.slice(0, 10))!;
  return Number(number[10]) === expected ? { ok: true } : { ok: false, reason: 'check_digit', expected };
}

export function isValidContainerNumber(number: string): boolean {
  return checkContainerNumber(number).ok;
}
