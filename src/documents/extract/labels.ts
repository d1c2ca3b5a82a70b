import type { Line, Segment } from './layout.ts';

// Pairs printed labels with their values. Documents print a value after its label ("B/L No:
// ABC123"), in the next column of the same line, or in the box below the label. Each way gives a
// candidate with a confidence; callers validate the value's shape and keep the best.

export interface Found {
  value: string;
  confidence: number;
  /** The lines the value spans (party blocks), first line first. */
  block?: string[];
}

interface Hit {
  line: number;
  seg: number;
  rest: string;
  segment: Segment;
}

/** Every place a label matches, with the text after it in its segment. */
function hits(lines: Line[], label: RegExp): Hit[] {
  const out: Hit[] = [];
  const re = new RegExp(label.source, label.flags.includes('i') ? 'i' : '');
  lines.forEach((l, li) => {
    l.segments.forEach((s, si) => {
      const m = re.exec(s.text);
      if (m) out.push({ line: li, seg: si, rest: s.text.slice(m.index + m[0].length), segment: s });
    });
  });
  return out;
}

const stripLead = (s: string) => s.replace(/^[\s:#.\-–)]+/, '').trim();

/** Is this text itself a label of some field (so not a value)? */
export type LabelTest = (text: string) => boolean;

/** The segment of a line below that sits under the given x range. */
function below(
  lines: Line[],
  from: number,
  s: Segment,
  maxLines: number,
): Array<{ li: number; seg: Segment }> {
  const out: Array<{ li: number; seg: Segment }> = [];
  const page = lines[from]!.page;
  for (let li = from + 1; li < lines.length && out.length < maxLines; li++) {
    const l = lines[li]!;
    if (l.page !== page) break;
    const gap = l.y - lines[li - 1]!.y;
    if (gap > l.height * 3.2) break;
    const seg = l.segments.find((g) => g.x0 < s.x1 + l.height && g.x1 > s.x0 - l.height * 0.5);
    if (!seg) break;
    out.push({ li, seg });
  }
  return out;
}

/**
 * The value of a one-line field. `accept` returns the cleaned value or null when the text is not a
 * value of this field (a number of the wrong shape, another label).
 */
export function findValue(
  lines: Line[],
  labels: RegExp[],
  accept: (text: string) => string | null,
  isLabel: LabelTest,
): Found | null {
  let best: Found | null = null;
  const offer = (text: string, confidence: number) => {
    if (!text || isLabel(text)) return;
    const v = accept(text);
    if (v !== null && (!best || confidence > best.confidence)) best = { value: v, confidence };
  };
  for (const label of labels) {
    for (const h of hits(lines, label)) {
      const conf = h.segment.confidence;
      const rest = stripLead(h.rest);
      if (rest) offer(rest, 0.95 * conf);
      const right = lines[h.line]!.segments[h.seg + 1];
      if (right) offer(right.text, 0.85 * Math.min(conf, right.confidence));
      const under = below(lines, h.line, h.segment, 1)[0];
      if (under) offer(under.seg.text, 0.8 * Math.min(conf, under.seg.confidence));
    }
    if (best) return best;
  }
  return best;
}

/** A party block: the label, then a name line and address lines below it (or after it). */
export function findBlock(lines: Line[], labels: RegExp[], isLabel: LabelTest, maxLines = 4): Found | null {
  for (const label of labels) {
    for (const h of hits(lines, label)) {
      const block: string[] = [];
      const rest = stripLead(h.rest);
      if (rest && !isLabel(rest)) block.push(rest);
      for (const { seg } of below(lines, h.line, h.segment, maxLines)) {
        if (isLabel(seg.text)) break;
        block.push(seg.text);
        if (block.length >= maxLines) break;
      }
      const cleaned = block.map(cleanText).filter(Boolean);
      if (cleaned.length > 0) {
        return { value: cleaned[0]!, block: cleaned, confidence: (rest ? 0.9 : 0.8) * h.segment.confidence };
      }
    }
  }
  return null;
}

/** Party lines without the specks OCR reads as punctuation at their ends or between words. */
export function cleanText(s: string): string {
  return s
    .replace(/\s+[-–—~'’‘.,]+(?=\s)/g, ' ')
    .replace(/^[^\p{L}\p{N}]+/u, '')
    .replace(/[^\p{L}\p{N}).]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim();
}
