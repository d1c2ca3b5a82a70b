import { allShippingLines, type ShippingLine, shippingLineByScac } from '../../reference/data.ts';
import { checkDigit, isValidContainerNumber } from '../../util/iso6346.ts';

// Numbers read from documents, validated: ISO 6346 container numbers (check digit, with the
// letter/digit confusions OCR makes undone), known SCACs and carrier names, weights, dates.

const TO_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '2': 'Z', '5': 'S', '8': 'B', '6': 'G' };
const TO_DIGIT: Record<string, string> = {
  O: '0',
  Q: '0',
  D: '0',
  I: '1',
  L: '1',
  Z: '2',
  S: '5',
  B: '8',
  G: '6',
};

/** A container number from an 11-character token, repairing OCR confusions; null if invalid. */
export function repairContainerNumber(token: string): string | null {
  const t = token.toUpperCase();
  if (t.length !== 11) return null;
  if (isValidContainerNumber(t)) return t;
  const head = [...t.slice(0, 4)].map((c) => TO_LETTER[c] ?? c).join('');
  const tail = [...t.slice(4)].map((c) => TO_DIGIT[c] ?? c).join('');
  const fixed = head + tail;
  return isValidContainerNumber(fixed) ? fixed : null;
}

/** Every valid container number in the text, in order of appearance, once each. */
export function containerNumbersIn(text: string): string[] {
  const out: string[] = [];
  // Printed as ABCU1234567, ABCU 123456 7, ABCU-123456-7 or ABCU 1234567.
  const re = /\b([A-Z0-9]{4})[\s-]?([A-Z0-9]{6})[\s-]?([A-Z0-9])\b/gi;
  for (const m of text.matchAll(re)) {
    const n = repairContainerNumber(`${m[1]}${m[2]}${m[3]}`);
    if (n && !out.includes(n)) out.push(n);
  }
  return out;
}

export { checkDigit };

/** Shipping lines by name words, longest names first (so "Hapag-Lloyd" beats "Lloyd"). */
let namesIndex: Array<{ re: RegExp; line: ShippingLine }> | null = null;

function carrierNames(): Array<{ re: RegExp; line: ShippingLine }> {
  if (!namesIndex) {
    const entries: Array<{ name: string; line: ShippingLine }> = [];
    for (const l of allShippingLines()) {
      for (const n of new Set([l.name, l.short_name])) {
        if (n && n.length >= 3) entries.push({ name: n, line: l });
      }
    }
    entries.sort((a, b) => b.name.length - a.name.length);
    namesIndex = entries.map((e) => ({
      re: new RegExp(
        `\\b${e.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[\s-]+/g, '[\\s-]*')}\\b`,
        'i',
      ),
      line: e.line,
    }));
  }
  return namesIndex;
}

/** The carrier named in the text (its SCAC printed as such, else its name). */
export function carrierIn(
  text: string,
  scacLabelled: string | null,
): { line: ShippingLine; by: 'scac' | 'name' } | null {
  if (scacLabelled) {
    const l = shippingLineByScac(scacLabelled);
    if (l) return { line: l, by: 'scac' };
  }
  for (const { re, line } of carrierNames()) if (re.test(text)) return { line, by: 'name' };
  return null;
}

export function knownScac(token: string): string | null {
  const t = token.trim().toUpperCase();
  return /^[A-Z0-9]{2,4}$/.test(t) && shippingLineByScac(t) ? shippingLineByScac(t)!.scac : null;
}

/** kg from "12,345.6 KGS", "12345 kg", "27,216 LBS" (converted). */
export function weightKg(text: string): number | null {
  const m = /(\d{1,3}(?:[,.\s]\d{3})*(?:[.,]\d+)?|\d+(?:[.,]\d+)?)\s*(KGS?|KILOS?|LBS?|POUNDS?)\b/i.exec(
    text,
  );
  if (!m) return null;
  const value = parseAmount(m[1]!);
  if (value === null) return null;
  return /^L|^P/i.test(m[2]!) ? Math.round(value * 0.45359237 * 10) / 10 : value;
}

/** "1,234.50" / "1.234,50" / "1234" -> number. */
export function parseAmount(raw: string): number | null {
  let s = raw.replace(/\s/g, '');
  if (/,\d{1,2}$/.test(s) && s.includes('.')) s = s.replace(/\./g, '').replace(',', '.');
  else if (/,\d{1,2}$/.test(s)) s = s.replace(',', '.');
  else s = s.replace(/,/g, '');
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

const SIZE_TYPES: Array<[RegExp, string]> = [
  [/\b(20|40|45)\s*'?\s*(?:FT)?\s*(GP|DV|DC|STD|ST)\b/i, '$1GP'],
  [/\b(40|45)\s*'?\s*(?:FT)?\s*(HC|HQ|HCDV|HIGH\s*CUBE)\b/i, '$1HC'],
  [/\b(20|40)\s*'?\s*(?:FT)?\s*(RF|RE|REEFER|RH)\b/i, '$1RF'],
  [/\b(20|40)\s*'?\s*(?:FT)?\s*(OT|OPEN\s*TOP)\b/i, '$1OT'],
  [/\b(20|40)\s*'?\s*(?:FT)?\s*(FR|FLAT\s*RACK)\b/i, '$1FR'],
  [/\b(22G1|42G1|45G1|22R1|45R1|L5G1|42U1|22U1)\b/i, '$1'],
];

/** Size and type in the common short form (20GP, 40HC, 45G1...). */
export function sizeType(text: string): string | null {
  for (const [re, out] of SIZE_TYPES) {
    const m = re.exec(text);
    if (m) return m[0].replace(re, out).toUpperCase();
  }
  return null;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** An ISO date (YYYY-MM-DD) from the common printed forms, or null. */
export function parseDate(text: string): string | null {
  const t = text.trim();
  let m = /\b(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})\b/.exec(t);
  if (m) return iso(+m[1]!, +m[2]!, +m[3]!);
  m = /\b(\d{1,2})[\s-]([A-Za-z]{3})[a-z]*\.?[\s-,]+(\d{4})\b/.exec(t);
  if (m) return iso(+m[3]!, MONTHS.indexOf(m[2]!.toLowerCase()) + 1, +m[1]!);
  m = /\b([A-Za-z]{3})[a-z]*\.?\s+(\d{1,2}),?\s+(\d{4})\b/.exec(t);
  if (m) return iso(+m[3]!, MONTHS.indexOf(m[1]!.toLowerCase()) + 1, +m[2]!);
  m = /\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b/.exec(t);
  // Day first (the form most carriers print outside the US); a first part above 12 settles it.
  if (m) return +m[2]! > 12 ? iso(+m[3]!, +m[1]!, +m[2]!) : iso(+m[3]!, +m[2]!, +m[1]!);
  return null;
}

function iso(y: number, mo: number, d: number): string | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || y < 1990 || y > 2100) return null;
  return `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
