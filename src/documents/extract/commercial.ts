import { findBlock, findValue } from './labels.ts';
import type { Line } from './layout.ts';
import { containerNumbersIn, parseAmount, parseDate } from './numbers.ts';
import { type PackingItem, packingTotals } from './packing.ts';
import { type Confidence, type Party, referenceNumber } from './transport.ts';
import { isLabel, LABELS } from './vocabulary.ts';

// Commercial invoices and packing lists: parties, the line table and totals, plus the B/L and
// container numbers they often quote (what links them to a shipment).

export interface InvoiceLine {
  description: string;
  quantity: number | null;
  unit_price: number | null;
  amount: number | null;
}

export interface CommercialPayload {
  invoice_number: string | null;
  invoice_date: string | null;
  currency: string | null;
  seller: Party | null;
  buyer: Party | null;
  lines: InvoiceLine[];
  total_amount: number | null;
  bill_of_lading_number: string | null;
  container_numbers: string[];
}

export type PackingLine = PackingItem;

export interface PackingPayload {
  packing_list_number: string | null;
  date: string | null;
  shipper: Party | null;
  consignee: Party | null;
  lines: PackingLine[];
  total_packages: number | null;
  total_gross_weight_kg: number | null;
  bill_of_lading_number: string | null;
  container_numbers: string[];
}

const round = (n: number) => Math.round(n * 100) / 100;
const CURRENCIES = /\b(USD|EUR|GBP|CNY|RMB|JPY|HKD|SGD|INR|AUD|CAD|CHF|KRW)\b/;
const NUM = /^-?\d{1,3}(?:[,.]\d{3})*(?:[.,]\d{1,2})?$|^-?\d+(?:[.,]\d{1,2})?$/;

function party(lines: Line[], labels: RegExp[], conf: Confidence, key: string): Party | null {
  const f = findBlock(lines, labels, isLabel);
  if (!f?.block) return null;
  conf[key] = round(f.confidence);
  const [name, ...rest] = f.block;
  return { name: name!.trim(), address: rest.length ? rest.join(', ') : null };
}

/** Rows of the table that starts at a header line matching `header`, up to a total line. */
function tableRows(lines: Line[], header: RegExp): Line[] {
  const start = lines.findIndex((l) => header.test(l.text));
  if (start < 0) return [];
  const rows: Line[] = [];
  for (const l of lines.slice(start + 1)) {
    if (/^\s*(?:sub\s*)?total\b/i.test(l.text) || /\btotal\b/i.test(l.segments[0]?.text ?? '')) break;
    rows.push(l);
  }
  return rows;
}

/** Trailing numbers of a row ("Steel bolts   500 PCS   1.20   600.00" -> [500, 1.2, 600]). */
function trailingNumbers(l: Line): { description: string; numbers: number[] } {
  const tokens = l.text.split(/\s+/);
  const numbers: number[] = [];
  while (tokens.length > 1) {
    const t = tokens.at(-1)!.replace(/^(USD|EUR|\$|€)/i, '');
    if (NUM.test(t)) {
      numbers.unshift(parseAmount(t)!);
      tokens.pop();
    } else if (/^(PCS|PC|CTNS?|CARTONS?|UNITS?|SETS?|KGS?|PKGS?|PALLETS?|USD|EUR)$/i.test(t)) tokens.pop();
    else break;
  }
  return { description: tokens.join(' ').trim(), numbers };
}

function references(lines: Line[], conf: Confidence) {
  const text = lines.map((l) => l.text).join('\n');
  const bl = findValue(lines, LABELS.bl, referenceNumber, isLabel);
  if (bl) conf.bill_of_lading_number = round(bl.confidence);
  return { bill_of_lading_number: bl?.value ?? null, container_numbers: containerNumbersIn(text) };
}

export function extractInvoice(lines: Line[]): { payload: CommercialPayload; confidence: Confidence } {
  const conf: Confidence = {};
  const text = lines.map((l) => l.text).join('\n');
  const no = findValue(lines, LABELS.invoiceNo, referenceNumber, isLabel);
  if (no) conf.invoice_number = round(no.confidence);
  const date = findValue(lines, LABELS.invoiceDate, parseDate, isLabel);
  if (date) conf.invoice_date = round(date.confidence);
  const cur = findValue(
    lines,
    LABELS.currency,
    (t) => CURRENCIES.exec(t.toUpperCase())?.[1] ?? null,
    isLabel,
  );
  const currency = cur?.value ?? CURRENCIES.exec(text)?.[1] ?? null;
  if (currency) conf.currency = cur ? round(cur.confidence) : 0.6;
  const rows = tableRows(lines, /\bdescription\b.*\b(?:amount|total|price)\b/i);
  const items: InvoiceLine[] = [];
  for (const r of rows) {
    const { description, numbers } = trailingNumbers(r);
    if (numbers.length < 2 || !/[A-Za-z]{2}/.test(description)) continue;
    const [q, p, a] = numbers.length >= 3 ? numbers.slice(-3) : [numbers[0]!, null, numbers[1]!];
    items.push({ description, quantity: q ?? null, unit_price: p ?? null, amount: a ?? null });
  }
  if (items.length) conf.lines = 0.8;
  const total = findValue(
    lines,
    LABELS.total,
    (t) => {
      const m = /(\d[\d,.]*\d|\d)/.exec(t.replace(CURRENCIES, ''));
      return m ? String(parseAmount(m[1]!)) : null;
    },
    isLabel,
  );
  if (total) conf.total_amount = round(total.confidence);
  return {
    payload: {
      invoice_number: no?.value ?? null,
      invoice_date: date?.value ?? null,
      currency,
      seller: party(lines, LABELS.seller, conf, 'seller'),
      buyer: party(lines, LABELS.buyer, conf, 'buyer'),
      lines: items,
      total_amount: total ? Number(total.value) : null,
      ...references(lines, conf),
    },
    confidence: conf,
  };
}

export function extractPackingList(lines: Line[]): { payload: PackingPayload; confidence: Confidence } {
  const conf: Confidence = {};
  const no = findValue(lines, LABELS.packingNo, referenceNumber, isLabel);
  if (no) conf.packing_list_number = round(no.confidence);
  const date = findValue(lines, [/\bDate\b/i], parseDate, isLabel);
  if (date) conf.date = round(date.confidence);
  const { items, totals, confidence } = packingTotals(lines);
  if (confidence.lines !== undefined) conf.lines = confidence.lines;
  if (confidence.packages !== undefined) conf.total_packages = confidence.packages;
  if (confidence.gross_kg !== undefined) conf.total_gross_weight_kg = confidence.gross_kg;
  return {
    payload: {
      packing_list_number: no?.value ?? null,
      date: date?.value ?? null,
      shipper: party(lines, LABELS.shipper, conf, 'shipper'),
      consignee: party(lines, LABELS.consignee, conf, 'consignee'),
      lines: items,
      total_packages: totals.packages,
      total_gross_weight_kg: totals.gross_kg,
      ...references(lines, conf),
    },
    confidence: conf,
  };
}
