// ISO 6346 freight container numbers, the one implementation: create validation
// (tracking-requests/validate.ts), number inference (reference/infer.ts), the carrier
// adapters, the engine and the simulator (sim/ imports this file: it is pure, no imports).
//
// A number is a 3-letter owner code, an equipment category letter, a 6-digit serial and a check
// digit. Categories: U (freight container), J (detachable freight-container-related equipment),
// Z (trailer or chassis). R is not an ISO 6346 category (it was proposed for reefers and never
// adopted), so it is refused everywhere, the same way. Check digit: letters take the values 10..38
// skipping multiples of 11, each of the first ten characters is weighted by 2^position, and the
// sum modulo 11 is the digit, a remainder of 10 giving 0.

const LETTER_VALUES: Record<string, number> = {};
{
  let v = 10;
  for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') {
    if (v % 11 === 0) v++;
    LETTER_VALUES[ch] = v++;
  }
}

const FIRST10 = /^[A-Z]{3}[UJZ]\d{6}$/;
const SHAPE = /^[A-Z]{3}[UJZ]\d{7}$/;

/** Check digit for the first 10 characters, or null when they are not well formed. */
export function checkDigit(first10: string): number | null {
  if (!FIRST10.test(first10)) return null;
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

/** Checks an upper-case number without separators (callers normalize first). */
export function checkContainerNumber(number: string): ContainerNumberCheck {
  if (!SHAPE.test(number)) return { ok: false, reason: 'format' };
  const expected = checkDigit(number.slice(0, 10))!;
  return Number(number[10]) === expected ? { ok: true } : { ok: false, reason: 'check_digit', expected };
}

/** Shaped like a container number (owner code, category, 7 digits), check digit aside. */
export function hasContainerShape(number: string): boolean {
  return SHAPE.test(number);
}

export function isValidContainerNumber(number: string): boolean {
  return checkContainerNumber(number).ok;
}

/** A full number from an owner prefix such as "TGHU" and a serial (taken modulo 1,000,000). */
export function containerNumber(ownerPrefix: string, serial: number): string {
  const first10 = ownerPrefix.toUpperCase() + String(serial % 1_000_000).padStart(6, '0');
  const digit = checkDigit(first10);
  if (digit === null) throw new Error(`not an ISO 6346 owner prefix and serial: ${first10}`);
  return first10 + digit;
}
