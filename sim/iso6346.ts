// ISO 6346 container numbers: 3-letter owner code, category letter (U, J or Z), 6-digit serial,
// check digit. Numbers the simulator generates must pass the check real clients apply before
// querying a carrier, so they are built here rather than typed by hand.

const CONTAINER_RE = /^[A-Z]{3}[UJZ]\d{7}$/;

// Letter values skip multiples of 11 (A=10, B=12, ..., K=21 skipping 11, U=32 skipping 22, ...).
function letterValue(ch: string): number {
  let value = 10;
  for (let code = 65; code < ch.charCodeAt(0); code++) {
    value++;
    if (value % 11 === 0) value++;
  }
  return value;
}

/** Check digit for the first 10 characters (owner code, category, serial). */
export function checkDigit(first10: string): number {
  let sum = 0;
  for (let i = 0; i < 10; i++) {
    const ch = first10[i]!;
    const value = ch >= '0' && ch <= '9' ? Number(ch) : letterValue(ch);
    sum += value * 2 ** i;
  }
  return (sum % 11) % 10;
}

export function isValidContainerNumber(number: string): boolean {
  const n = number.toUpperCase();
  return CONTAINER_RE.test(n) && checkDigit(n.slice(0, 10)) === Number(n[10]);
}

/** A full container number from an owner prefix such as "TGHU" and a serial below 1,000,000. */
export function containerNumber(ownerPrefix: string, serial: number): string {
  const first10 = ownerPrefix.toUpperCase() + String(serial % 1_000_000).padStart(6, '0');
  return first10 + checkDigit(first10);
}
