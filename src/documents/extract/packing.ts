import type { Line } from './layout.ts';
import { parseAmount } from './numbers.ts';

// A packing list's line table and its totals, from the text lines alone (pure). The columns are
// named by the table's header ("Cartons  Net Weight  Gross Weight  Volume"), so a row's numbers
// are read by column, not by position (the last number of a row is often the volume, not the
// weight). Totals come from the labelled totals ("Total Gross Weight 18,450.00 KGS") or the TOTAL
// row, and are checked against the sum of the lines: when they disagree the stated total is kept,
// with a lower confidence, since the lines may be only those the reader could read.

export type Quantity = 'packages' | 'net_kg' | 'gross_kg' | 'volume_cbm';

export interface PackingItem {
  description: string;
  packages: number | null;
  gross_weight_kg: number | null;
}

export interface PackingTotals {
  items: PackingItem[];
  totals: Record<Quantity, number | null>;
  /** 0..1 per total found; lines' confidence under `lines`. */
  confidence: Partial<Record<Quantity | 'lines', number>>;
}

/** Header words of each column, tried in this order (net before the plain "weight" of gross). */
const COLUMN: [Quantity, RegExp][] = [
  ['packages', /\b(?:cartons?|ctns|packages?|pkgs|qty|quantity|no\.? of (?:pkgs|packages))\b/i],
  ['net_kg', /\bnet\s*(?:weight|wt)\b|\bn\.\s*w\.?/i],
  ['gross_kg', /\bgross\s*(?:weight|wt)\b|\bg\.\s*w\.?|\bweight\b/i],
  ['volume_cbm', /\b(?:volume|measurement|cbm|m3)\b/i],
];

/** Labelled totals, anywhere on the document. */
const LABELLED: [Quantity, RegExp][] = [
  ['packages', /\btotal\s+(?:no\.?\s+of\s+)?(?:packages|cartons|ctns|pkgs)\b/i],
  ['net_kg', /\btotal\s+net\s*(?:weight|wt)\b/i],
  ['gross_kg', /\btotal\s+gross\s*(?:weight|wt)\b/i],
  ['volume_cbm', /\btotal\s+(?:volume|measurement|cbm)\b/i],
];

const HEADER = /\bdescription\b|\bcontainer\b|\bmarks\b/i;
const NUMBER = /^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$|^-?\d+(?:[.,]\d+)?$/;
const UNIT = /^(?:PCS?|CTNS?|CARTONS?|PKGS?|PACKAGES?|PALLETS?|UNITS?|SETS?|KGS?|KILOS?|CBM|M3)$/i;
const TOTAL_ROW = /^\s*(?:grand\s+)?total\b/i;

/** The quantities a header line names, left to right. */
export function columnsOf(header: string): Quantity[] {
  const found: { q: Quantity; at: number }[] = [];
  let rest = header;
  for (const [q, re] of COLUMN) {
    const m = re.exec(rest);
    if (!m) continue;
    found.push({ q, at: m.index });
    // Blank the match so "weight" of "Net Weight" is not also read as gross.
    rest = rest.slice(0, m.index) + ' '.repeat(m[0].length) + rest.slice(m.index + m[0].length);
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.q);
}

/** A row's description and its trailing numbers, units dropped ("Shirts 420 CTNS 6,150.00 KGS"). */
function trailing(text: string): { description: string; numbers: number[] } {
  const tokens = text.split(/\s+/).filter(Boolean);
  const numbers: number[] = [];
  while (tokens.length > 0) {
    const t = tokens.at(-1)!;
    if (UNIT.test(t)) tokens.pop();
    else if (NUMBER.test(t)) {
      numbers.unshift(parseAmount(t)!);
      tokens.pop();
    } else break;
  }
  return { description: tokens.join(' '), numbers };
}

/** Numbers right-aligned to the columns (a row may omit leading columns, never trailing ones). */
function byColumn(numbers: number[], columns: Quantity[]): Partial<Record<Quantity, number>> {
  const out: Partial<Record<Quantity, number>> = {};
  const skip = columns.length - numbers.length;
  columns.forEach((q, i) => {
    if (i >= skip && numbers[i - skip] !== undefined) out[q] = numbers[i - skip]!;
  });
  return out;
}

const agree = (a: number, b: number) => Math.abs(a - b) <= Math.max(0.01, Math.abs(b) * 0.001);
const round = (n: number) => Math.round(n * 1000) / 1000;

export function packingTotals(lines: Line[]): PackingTotals {
  const headerAt = lines.findIndex((l) => HEADER.test(l.text) && columnsOf(l.text).length > 0);
  const columns = headerAt >= 0 ? columnsOf(lines[headerAt]!.text) : [];
  const rows: Partial<Record<Quantity, number>>[] = [];
  const items: PackingItem[] = [];
  let totalRow: Partial<Record<Quantity, number>> = {};
  for (const l of headerAt >= 0 ? lines.slice(headerAt + 1) : []) {
    if (TOTAL_ROW.test(l.text) || LABELLED.some(([, re]) => re.test(l.text))) {
      if (TOTAL_ROW.test(l.text) && !LABELLED.some(([, re]) => re.test(l.text))) {
        totalRow = byColumn(trailing(l.text.replace(TOTAL_ROW, '')).numbers, columns);
      }
      break;
    }
    const { description, numbers } = trailing(l.text);
    if (!/[A-Za-z]{2}/.test(description) || numbers.length === 0) continue;
    const row = byColumn(numbers, columns);
    rows.push(row);
    items.push({ description, packages: row.packages ?? null, gross_weight_kg: row.gross_kg ?? null });
  }
  const labelled: Partial<Record<Quantity, number>> = {};
  for (const l of lines) {
    for (const [q, re] of LABELLED) {
      const m = re.exec(l.text);
      if (!m || labelled[q] !== undefined) continue;
      const n = /(\d[\d,.]*)/.exec(l.text.slice(m.index + m[0].length));
      const value = n ? parseAmount(n[1]!.replace(/[.,]$/, '')) : null;
      if (value !== null) labelled[q] = value;
    }
  }
  const totals = {
    packages: null,
    net_kg: null,
    gross_kg: null,
    volume_cbm: null,
  } as PackingTotals['totals'];
  const confidence: PackingTotals['confidence'] = items.length ? { lines: 0.8 } : {};
  for (const q of ['packages', 'net_kg', 'gross_kg', 'volume_cbm'] as const) {
    const sum =
      rows.length > 0 && rows.every((r) => r[q] !== undefined)
        ? round(rows.reduce((s, r) => s + r[q]!, 0))
        : undefined;
    const stated = labelled[q] ?? totalRow[q];
    if (stated === undefined) {
      if (sum !== undefined) [totals[q], confidence[q]] = [sum, 0.7];
      continue;
    }
    totals[q] = stated;
    // The label and the TOTAL row saying different things lowers it as much as the lines do.
    const rowDisagrees =
      labelled[q] !== undefined && totalRow[q] !== undefined && !agree(totalRow[q]!, stated);
    if (sum === undefined) confidence[q] = rowDisagrees ? 0.5 : 0.8;
    else confidence[q] = agree(sum, stated) && !rowDisagrees ? 0.95 : 0.5;
  }
  return { items, totals, confidence };
}
