import { invoiceDoc, type TrueDoc, transportDoc } from './doc-content.ts';
import {
  layoutOps,
  type PdfFont,
  renderPdf,
  renderScan,
  renderScannedPdf,
  type ScanOptions,
} from './doc-render.ts';

// The extraction-quality fixture set: generated documents with their true values, varied in
// type, layout, font, medium (text PDF, image, scanned PDF), skew, orientation, noise and format.

export interface Fixture {
  name: string;
  doc: TrueDoc;
  contentType: string;
  ocr: boolean;
  render(): Promise<Buffer>;
}

const pdf = (name: string, doc: TrueDoc, layout: 'inline' | 'boxed', font: PdfFont): Fixture => ({
  name,
  doc,
  contentType: 'application/pdf',
  ocr: false,
  render: () => renderPdf(layoutOps(doc, layout), font),
});

const scan = (
  name: string,
  doc: TrueDoc,
  layout: 'inline' | 'boxed',
  o: ScanOptions,
  asPdf = false,
): Fixture => ({
  name,
  doc,
  contentType: asPdf ? 'application/pdf' : `image/${o.format ?? 'png'}`,
  ocr: true,
  render: async () => {
    const img = await renderScan(layoutOps(doc, layout), asPdf ? { ...o, format: 'png' } : o);
    return asPdf ? renderScannedPdf(img) : img;
  },
});

export function fixtureSet(): Fixture[] {
  return [
    pdf('bl-inline-helvetica', transportDoc(101), 'inline', 'helvetica'),
    pdf('bl-boxed-times', transportDoc(102), 'boxed', 'times'),
    pdf('bl-inline-courier', transportDoc(103), 'inline', 'courier'),
    pdf('swb-boxed-helvetica', transportDoc(104, 'sea_waybill'), 'boxed', 'helvetica'),
    pdf('an-inline-times', transportDoc(105, 'arrival_notice'), 'inline', 'times'),
    pdf('an-boxed-courier', transportDoc(106, 'arrival_notice'), 'boxed', 'courier'),
    pdf('bc-inline-helvetica', transportDoc(107, 'booking_confirmation'), 'inline', 'helvetica'),
    pdf('inv-inline-helvetica', invoiceDoc(108), 'inline', 'helvetica'),
    pdf('inv-boxed-times', invoiceDoc(109), 'boxed', 'times'),
    pdf('inv-inline-courier', invoiceDoc(110), 'inline', 'courier'),
    scan('bl-scan-sans', transportDoc(111), 'inline', { family: 'DejaVu Sans' }),
    scan('bl-scan-serif-skew', transportDoc(112), 'boxed', { family: 'Liberation Serif', skew: 1.2 }),
    scan('bl-scan-mono-noise', transportDoc(113), 'inline', { family: 'DejaVu Sans Mono', noise: 0.004 }),
    scan('bl-scan-upside-down', transportDoc(114), 'inline', { family: 'Liberation Sans', turn: 180 }),
    scan('an-scan-jpeg', transportDoc(115, 'arrival_notice'), 'boxed', {
      family: 'DejaVu Serif',
      format: 'jpeg',
    }),
    scan('an-scan-sideways', transportDoc(116, 'arrival_notice'), 'inline', {
      family: 'DejaVu Sans',
      turn: 90,
    }),
    scan('an-scan-tiff-lowres', transportDoc(117, 'arrival_notice'), 'inline', {
      family: 'Liberation Sans',
      format: 'tiff',
      scale: 1.6,
    }),
    scan('inv-scan-sans-noise', invoiceDoc(118), 'inline', { family: 'DejaVu Sans', noise: 0.006 }),
    scan('inv-scan-serif-skew', invoiceDoc(119), 'boxed', { family: 'Liberation Serif', skew: -0.8 }),
    scan('bl-scanned-pdf', transportDoc(120), 'boxed', { family: 'DejaVu Sans' }, true),
    scan('inv-scanned-pdf', invoiceDoc(121), 'inline', { family: 'Liberation Sans', skew: 0.5 }, true),
    scan('swb-scan-heavy-noise', transportDoc(122, 'sea_waybill'), 'inline', {
      family: 'DejaVu Sans',
      noise: 0.015,
    }),
  ];
}

/** The extracted payload flattened like TrueDoc.expect. */
export function flatten(
  type: string,
  payload: Record<string, unknown>,
): Record<string, string | number | null> {
  const p = payload as Record<string, any>;
  const out: Record<string, string | number | null> = { document_type: type };
  const keys = [
    'bill_of_lading_number',
    'booking_number',
    'scac',
    'vessel_name',
    'voyage_number',
    'issue_date',
    'estimated_arrival_date',
    'invoice_number',
    'invoice_date',
    'currency',
    'total_amount',
  ];
  for (const k of keys) if (k in p) out[k] = p[k] ?? null;
  for (const k of ['port_of_loading', 'port_of_discharge'])
    if (k in p) out[`${k}.locode`] = p[k]?.locode ?? null;
  for (const k of ['shipper', 'consignee', 'seller', 'buyer'])
    if (k in p) out[`${k}.name`] = p[k]?.name ?? null;
  (p.containers ?? []).forEach((c: any, i: number) => {
    out[`containers.${i}.number`] = c.number;
    out[`containers.${i}.size_type`] = c.size_type;
    out[`containers.${i}.seal`] = c.seal_numbers?.[0] ?? null;
    out[`containers.${i}.weight_kg`] = c.gross_weight_kg;
  });
  (p.lines ?? []).forEach((l: any, i: number) => {
    out[`lines.${i}.amount`] = l.amount;
  });
  return out;
}

export interface Score {
  expected: number;
  extracted: number;
  correct: number;
}

/** Field-level counts: a field is extracted when non-null, correct when equal to the truth. */
export function score(
  expect: TrueDoc['expect'],
  got: Record<string, string | number | null>,
): Score & { wrong: string[] } {
  const s = { expected: 0, extracted: 0, correct: 0, wrong: [] as string[] };
  for (const [k, v] of Object.entries(expect)) {
    s.expected++;
    const g = got[k];
    if (g !== null && g !== undefined) {
      s.extracted++;
      if (String(g) === String(v)) s.correct++;
      else s.wrong.push(`${k}: ${JSON.stringify(g)} != ${JSON.stringify(v)}`);
    } else s.wrong.push(`${k}: missing`);
  }
  // Fields extracted that the truth does not have (an extra container, say) count against precision.
  for (const [k, g] of Object.entries(got)) {
    if (!(k in expect) && /^(containers|lines)\./.test(k) && g !== null) s.extracted++;
  }
  return s;
}
