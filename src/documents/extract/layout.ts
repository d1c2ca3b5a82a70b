// The one text model every reader produces: positioned words grouped into lines of segments.
// PDF text items and OCR words both become words with boxes (top-down coordinates); lines are
// rebuilt from their vertical positions so that columns printed side by side share a line and
// labels can be paired with the value to their right or below them, whatever the reader.

export interface Word {
  page: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  text: string;
  /** 0..1: 1 for a PDF text layer, the OCR word confidence otherwise. */
  confidence: number;
}

export interface Segment {
  x0: number;
  x1: number;
  text: string;
  confidence: number;
}

export interface Line {
  page: number;
  y: number;
  height: number;
  segments: Segment[];
  text: string;
}

/** Groups words into lines (by vertical overlap) and each line into segments (by wide gaps). */
export function buildLines(words: Word[]): Line[] {
  const clean = words.filter((w) => w.text.trim() !== '');
  const byPage = new Map<number, Word[]>();
  for (const w of clean) {
    const list = byPage.get(w.page);
    if (list) list.push(w);
    else byPage.set(w.page, [w]);
  }
  const lines: Line[] = [];
  for (const page of [...byPage.keys()].sort((a, b) => a - b)) {
    const ws = byPage.get(page)!.sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
    const rows: Word[][] = [];
    for (const w of ws) {
      const mid = (w.y0 + w.y1) / 2;
      const row = rows.at(-1);
      if (row) {
        const top = Math.min(...row.map((r) => r.y0));
        const bottom = Math.max(...row.map((r) => r.y1));
        const h = bottom - top;
        if (mid > top - h * 0.1 && mid < bottom + h * 0.1 && mid - (top + bottom) / 2 < h * 0.45) {
          row.push(w);
          continue;
        }
      }
      rows.push([w]);
    }
    for (const row of rows) {
      row.sort((a, b) => a.x0 - b.x0);
      const height = Math.max(1, median(row.map((w) => w.y1 - w.y0)));
      const segments: Segment[] = [];
      let cur: { x0: number; x1: number; parts: string[]; conf: number[] } | null = null;
      for (const w of row) {
        // A gap wider than about two character widths starts a new column.
        if (cur && w.x0 - cur.x1 <= height * 1.6) {
          const glue = w.x0 - cur.x1 > height * 0.12 ? ' ' : '';
          cur.parts.push(glue + w.text.trim());
          cur.x1 = Math.max(cur.x1, w.x1);
          cur.conf.push(w.confidence);
        } else {
          if (cur) segments.push(toSegment(cur));
          cur = { x0: w.x0, x1: w.x1, parts: [w.text.trim()], conf: [w.confidence] };
        }
      }
      if (cur) segments.push(toSegment(cur));
      lines.push({
        page,
        y: Math.min(...row.map((w) => w.y0)),
        height,
        segments,
        text: segments.map((s) => s.text).join('   '),
      });
    }
  }
  return lines;
}

function toSegment(c: { x0: number; x1: number; parts: string[]; conf: number[] }): Segment {
  return {
    x0: c.x0,
    x1: c.x1,
    text: c.parts.join('').replace(/\s+/g, ' ').trim(),
    confidence: c.conf.reduce((a, b) => a + b, 0) / c.conf.length,
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Plain text of the lines, one per line (classification, previews). */
export function linesText(lines: Line[]): string {
  return lines.map((l) => l.text).join('\n');
}
