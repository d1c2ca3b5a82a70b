import type { Line } from './layout.ts';

// Classification by printed cues. A document names itself in its title; the body's vocabulary
// confirms it. Cues in the first lines of the first page count three times.

export const DOCUMENT_TYPES = [
  { code: 'bill_of_lading', label: 'Bill of Lading' },
  { code: 'sea_waybill', label: 'Sea Waybill' },
  { code: 'arrival_notice', label: 'Arrival Notice' },
  { code: 'booking_confirmation', label: 'Booking Confirmation' },
  { code: 'delivery_order', label: 'Delivery Order' },
  { code: 'commercial_invoice', label: 'Commercial Invoice' },
  { code: 'packing_list', label: 'Packing List' },
  { code: 'other', label: 'Other' },
] as const;

export type DocumentType = (typeof DOCUMENT_TYPES)[number]['code'];

export const TRANSPORT_TYPES: readonly DocumentType[] = [
  'bill_of_lading',
  'sea_waybill',
  'arrival_notice',
  'booking_confirmation',
  'delivery_order',
];

export function isDocumentType(s: string): s is DocumentType {
  return DOCUMENT_TYPES.some((t) => t.code === s);
}

const CUES: Record<Exclude<DocumentType, 'other'>, Array<[RegExp, number, string]>> = {
  bill_of_lading: [
    [/\bbill\s+of\s+lading\b/i, 4, 'bill of lading'],
    [/\bshipped\s+on\s+board\b/i, 2, 'shipped on board'],
    [/\bnegotiable\b/i, 1, 'negotiable'],
    [/\bnumber\s+of\s+original/i, 1, 'originals'],
  ],
  sea_waybill: [
    [/\bsea\s*way\s*bill\b/i, 7, 'sea waybill'],
    [/\bway\s*bill\b/i, 3, 'waybill'],
  ],
  arrival_notice: [
    [/\barrival\s+notice\b/i, 7, 'arrival notice'],
    [/\bnotice\s+of\s+arrival\b/i, 7, 'notice of arrival'],
    [/\blast\s+free\s+day\b/i, 2, 'last free day'],
    [/\bfreight\s+release\b|\bcharges?\s+due\b/i, 1, 'charges due'],
  ],
  booking_confirmation: [
    [/\bbooking\s+confirmation\b/i, 7, 'booking confirmation'],
    [/\bcut[\s-]?off\b/i, 2, 'cut-off'],
    [/\bempty\s+pick[\s-]?up\b/i, 1, 'empty pick-up'],
  ],
  delivery_order: [
    [/\bdelivery\s+order\b/i, 7, 'delivery order'],
    [/\brelease\s+(?:the\s+)?(?:following|to)\b/i, 2, 'release to'],
  ],
  commercial_invoice: [
    [/\bcommercial\s+invoice\b/i, 7, 'commercial invoice'],
    [/\binvoice\b/i, 3, 'invoice'],
    [/\bunit\s+price\b/i, 2, 'unit price'],
    [/\btotal\s+(?:amount|value|due)\b/i, 1, 'total amount'],
    [/\bincoterms?\b/i, 1, 'incoterms'],
  ],
  packing_list: [
    [/\bpacking\s+list\b/i, 7, 'packing list'],
    [/\bnet\s+weight\b/i, 1, 'net weight'],
    [/\bcartons?\b|\bpallets?\b/i, 1, 'packages'],
  ],
};

export interface Classification {
  type: DocumentType;
  confidence: number;
  notes: string;
}

export function classify(lines: Line[]): Classification {
  const title = lines
    .filter((l) => l.page === lines[0]?.page)
    .slice(0, 8)
    .map((l) => l.text)
    .join('\n');
  const body = lines.map((l) => l.text).join('\n');
  const scores: Array<{ type: DocumentType; score: number; cues: string[] }> = [];
  for (const [type, cues] of Object.entries(CUES) as Array<[DocumentType, Array<[RegExp, number, string]>]>) {
    let score = 0;
    const seen: string[] = [];
    for (const [re, weight, name] of cues) {
      if (re.test(title)) {
        score += weight * 3;
        seen.push(`"${name}" in the title`);
      } else if (re.test(body)) {
        score += weight;
        seen.push(`"${name}"`);
      }
    }
    scores.push({ type, score, cues: seen });
  }
  scores.sort((a, b) => b.score - a.score);
  const [first, second] = scores;
  if (!first || first.score < 4) {
    return {
      type: 'other',
      confidence: 0.5,
      notes:
        lines.length === 0
          ? 'No readable text.'
          : 'No title or vocabulary of a known shipping document was found.',
    };
  }
  const margin = first.score - (second?.score ?? 0);
  const confidence = Math.min(0.99, 0.5 + margin / 30 + (first.score >= 12 ? 0.2 : 0));
  return {
    type: first.type,
    confidence: Math.round(confidence * 100) / 100,
    notes: `Classified by ${first.cues.join(', ')} (score ${first.score}${second && second.score > 0 ? `; next ${second.type} ${second.score}` : ''}).`,
  };
}
