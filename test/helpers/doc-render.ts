import { PDFDocument, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';
import type { TrueDoc } from './doc-content.ts';

// Renders made-up documents as real files: text PDFs (pdf-lib, standard fonts), scanned images
// (SVG text rasterised by sharp with the machine's fonts, optionally skewed, turned and noisy),
// and scanned PDFs (such an image as the only content of a page).

export type Layout = 'inline' | 'boxed';
export interface Op {
  x: number;
  y: number;
  size: number;
  text: string;
  bold?: boolean;
}

const PAGE = { width: 612, height: 792 };

export function layoutOps(doc: TrueDoc, layout: Layout): Op[] {
  const ops: Op[] = [{ x: 50, y: 60, size: 18, text: doc.title, bold: true }];
  let y = 100;
  const fields = Object.entries(doc.fields);
  if (layout === 'inline') {
    for (const [label, value] of fields) {
      ops.push({ x: 50, y, size: 10, text: `${label}: ${value}` });
      y += 16;
    }
    y += 8;
    for (const [label, p] of Object.entries(doc.parties)) {
      ops.push({ x: 50, y, size: 10, text: `${label}:`, bold: true });
      ops.push({ x: 70, y: y + 14, size: 10, text: p.name });
      ops.push({ x: 70, y: y + 28, size: 10, text: p.address });
      y += 50;
    }
  } else {
    for (let i = 0; i < fields.length; i += 2) {
      for (const [j, x] of [
        [0, 50],
        [1, 320],
      ] as const) {
        const f = fields[i + j];
        if (!f) continue;
        ops.push({ x, y, size: 8, text: f[0], bold: true });
        ops.push({ x, y: y + 13, size: 10, text: f[1] });
      }
      y += 34;
    }
    const parties = Object.entries(doc.parties);
    for (let i = 0; i < parties.length; i += 2) {
      for (const [j, x] of [
        [0, 50],
        [1, 320],
      ] as const) {
        const p = parties[i + j];
        if (!p) continue;
        ops.push({ x, y, size: 8, text: p[0], bold: true });
        ops.push({ x, y: y + 13, size: 10, text: p[1].name });
        ops.push({ x, y: y + 26, size: 10, text: p[1].address });
      }
      y += 48;
    }
  }
  y += 10;
  if (doc.containers.length) {
    const cols = [50, 190, 300, 380];
    ['Container No.', 'Seal No.', 'Type', 'Gross Weight'].forEach((h, i) => {
      ops.push({ x: cols[i]!, y, size: 9, text: h, bold: true });
    });
    y += 16;
    for (const c of doc.containers) {
      [c.number, c.seal, c.size_type, `${c.weight_kg.toLocaleString('en-US')} KGS`].forEach((t, i) => {
        ops.push({ x: cols[i]!, y, size: 10, text: t });
      });
      y += 15;
    }
  }
  if (doc.lines) {
    const cols = [50, 260, 350, 450];
    ['Description', 'Quantity', 'Unit Price', 'Amount'].forEach((h, i) => {
      ops.push({ x: cols[i]!, y, size: 9, text: h, bold: true });
    });
    y += 16;
    for (const l of doc.lines) {
      [l.description, `${l.quantity} PCS`, l.unit_price.toFixed(2), l.amount.toFixed(2)].forEach((t, i) => {
        ops.push({ x: cols[i]!, y, size: 10, text: t });
      });
      y += 15;
    }
    const total = doc.lines.reduce((a, l) => a + l.amount, 0);
    ops.push({ x: 350, y: y + 6, size: 10, text: `Total Amount: USD ${total.toFixed(2)}`, bold: true });
  }
  return ops;
}

export type PdfFont = 'helvetica' | 'times' | 'courier';

export async function renderPdf(ops: Op[], font: PdfFont = 'helvetica'): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([PAGE.width, PAGE.height]);
  const names = {
    helvetica: [StandardFonts.Helvetica, StandardFonts.HelveticaBold],
    times: [StandardFonts.TimesRoman, StandardFonts.TimesRomanBold],
    courier: [StandardFonts.Courier, StandardFonts.CourierBold],
  } as const;
  const regular = await pdf.embedFont(names[font][0]);
  const bold = await pdf.embedFont(names[font][1]);
  for (const op of ops) {
    page.drawText(op.text, { x: op.x, y: PAGE.height - op.y, size: op.size, font: op.bold ? bold : regular });
  }
  return Buffer.from(await pdf.save());
}

export interface ScanOptions {
  family?: string;
  /** Pixels per point (2.5 = 180 dpi). */
  scale?: number;
  /** Small skew, degrees (a crooked scan). */
  skew?: number;
  /** 90/180/270: the page scanned turned. */
  turn?: 0 | 90 | 180 | 270;
  /** 0..1: share of pixels of speckle noise. */
  noise?: number;
  format?: 'png' | 'jpeg' | 'tiff';
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function renderScan(ops: Op[], o: ScanOptions = {}): Promise<Buffer> {
  const scale = o.scale ?? 2.5;
  const w = Math.round(PAGE.width * scale);
  const h = Math.round(PAGE.height * scale);
  const family = o.family ?? 'DejaVu Sans';
  const texts = ops
    .map(
      (op) =>
        `<text x="${op.x * scale}" y="${op.y * scale}" font-size="${op.size * scale}" font-family="${family}"${op.bold ? ' font-weight="bold"' : ''}>${esc(op.text)}</text>`,
    )
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="white"/><g fill="black"${o.skew ? ` transform="rotate(${o.skew} ${w / 2} ${h / 2})"` : ''}>${texts}</g></svg>`;
  let img = sharp(Buffer.from(svg)).flatten({ background: '#ffffff' }).greyscale();
  if (o.noise) {
    const raw = await img.raw().toBuffer({ resolveWithObject: true });
    let s = 12345;
    const data = raw.data;
    for (let i = 0; i < data.length; i++) {
      s = (s * 1103515245 + 12345) & 0x7fffffff;
      if (s / 0x7fffffff < o.noise) data[i] = data[i]! > 128 ? 90 : 200;
    }
    img = sharp(data, {
      raw: { width: raw.info.width, height: raw.info.height, channels: raw.info.channels },
    });
  }
  if (o.turn) img = sharp(await img.png().toBuffer()).rotate(o.turn);
  if (o.format === 'jpeg') return img.jpeg({ quality: 85 }).toBuffer();
  if (o.format === 'tiff') return img.tiff().toBuffer();
  return img.png().toBuffer();
}

/** A PDF whose only page content is the scanned image (no text layer). */
export async function renderScannedPdf(png: Buffer): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const image = await pdf.embedPng(png);
  const page = pdf.addPage([PAGE.width, PAGE.height]);
  page.drawImage(image, { x: 0, y: 0, width: PAGE.width, height: PAGE.height });
  return Buffer.from(await pdf.save());
}
